"""The ``CRAN (R)`` backend: R packages on CRAN, through the crandb API of R-hub.

The versions are the keys of ``versions`` at ``https://crandb.r-pkg.org/<name>/all``
(every release CRAN has had, archived ones included).  crandb's list of the
latest releases is the feed of recent releases (:meth:`CranBackend.recent_releases`).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.errors import BackendError

_URL_SEPARATORS = re.compile(r"[\s,;]+")


def _first_url(value: object) -> str | None:
    """The first address of a DESCRIPTION ``URL`` field (which may list several)."""
    if not isinstance(value, str):
        return None
    for candidate in _URL_SEPARATORS.split(value.strip()):
        if candidate.startswith(("https://", "http://")):
            return candidate
    return None


class CranBackend(Backend):
    name = "CRAN (R)"
    examples = ["https://cran.r-project.org/web/packages/tidyverse/",
                "https://cran.r-project.org/web/packages/devtools/"]
    more_info = ("Set the name to the package's name on CRAN (as in "
                 "https://cran.r-project.org/web/packages/<name>/); version_url is not used. Versions such "
                 "as 0.3-2 keep their dash.")
    #: where crandb lives (tests point it at a fake upstream)
    api_base = "https://crandb.r-pkg.org"
    feed_url = "https://crandb.r-pkg.org/-/pkgreleases?descending=true&limit=50"

    def upstream_url(self, project) -> str:
        """crandb's document of every release of *project* (version_url is ignored)."""
        return f"{self.api_base}/{quote(project.name.strip(), safe='')}/all"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        data = http.get_json(url, conditional=True, not_found="no such package on CRAN")
        found = data.get("versions") if isinstance(data, dict) else None
        if not isinstance(found, dict):
            raise BackendError(f"No versions found at {url}")
        return list(found)

    def recent_releases(self, http):
        """The latest CRAN releases, with the package's URL as homepage when it gives one."""
        data = http.get_json(self.feed_url)
        if not isinstance(data, list):
            raise BackendError(f"{self.feed_url}: unexpected answer (not a list of releases)")
        entries = []
        for release in data:
            package = release.get("package") if isinstance(release, dict) else None
            if not isinstance(package, dict):
                continue
            name, version = package.get("Package") or release.get("name"), package.get("Version")
            if isinstance(name, str) and name and isinstance(version, str) and version:
                homepage = _first_url(package.get("URL")) or f"https://cran.r-project.org/web/packages/{name}"
                entries.append(FeedEntry(name, version, homepage))
        return entries


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CranBackend)
