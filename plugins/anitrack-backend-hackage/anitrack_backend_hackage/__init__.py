"""The ``Hackage`` backend: Haskell packages on hackage.haskell.org.

The version is found on the package page ``https://hackage.haskell.org/package/<name>``
with the default regex: the link to the source tarball of the current
release (``<name>-<version>.tar.gz``).  Each check therefore sees the newest
release only.
"""

from __future__ import annotations

from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.check.regex import expand_regex, versions_from_text
from anitrack_core.errors import BackendError

REGEX_TIMEOUT = 2.0


class HackageBackend(Backend):
    name = "Hackage"
    examples = ["https://hackage.haskell.org/package/Hs2lib", "https://hackage.haskell.org/package/Biobase"]
    more_info = ("Set the name to the package's name on Hackage (as in https://hackage.haskell.org/package/<name>, "
                 "letter case included); version_url is not used. Only the current release is seen at each check.")
    #: where Hackage lives (tests point it at a fake upstream)
    api_base = "https://hackage.haskell.org"

    def upstream_url(self, project) -> str:
        """The package's page on Hackage (version_url is ignored)."""
        return f"{self.api_base}/package/{quote(project.name.strip(), safe='')}"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if response.status == 404:
            raise BackendError(f"{project.name}: no such package on Hackage: {url} (HTTP 404)")
        if not response.ok:
            raise BackendError(f'{url}: server responded with status {response.status} "{response.reason}"')
        return versions_from_text(response.text, expand_regex(None, project.name.strip()),
                                  project_name=project.name, url=url, timeout=REGEX_TIMEOUT)


@hookimpl
def anitrack_register_backends(registry):
    registry.add(HackageBackend)
