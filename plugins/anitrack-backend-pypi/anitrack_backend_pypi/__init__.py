"""The ``PyPI`` backend and the ``pypi`` ecosystem: Python distributions on pypi.org.

Versions come from the JSON API, ``https://pypi.org/pypi/<name>/json``: the
keys of ``releases``, without the releases whose files are all yanked.  The
project name is the distribution's name on PyPI; homepage and version_url are
not used to find it.  ``https://pypi.org/rss/updates.xml`` lists the latest
uploads (:meth:`PypiBackend.recent_releases`).

Settings: ``pypi.url``, where the JSON API lives (a mirror or a proxy of
PyPI).  Up to 64 requests are in flight to its host at once (an index service
behind a CDN; ``host_concurrency``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from anitrack_core import hookimpl
from anitrack_core.config import check_http_url
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.feeds import rss_items
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError


def _all_yanked(files: object) -> bool:
    """A release is yanked when it has files and every one of them is (releases without files are kept)."""
    return isinstance(files, list) and bool(files) and all(
        isinstance(item, dict) and item.get("yanked") is True for item in files)


API_BASE = "https://pypi.org"
#: requests in flight at once to the JSON API's host
CONCURRENCY = 64


class PypiBackend(Backend):
    name = "PyPI"
    examples = ["https://pypi.python.org/pypi/arrow", "https://pypi.org/project/fedmsg/"]
    more_info = ("Set the name to the distribution's name on PyPI (as in https://pypi.org/project/<name>/); "
                 "homepage and version_url are not used to find it. Releases whose files are all yanked "
                 "are left out.")
    #: where the JSON API lives (setting ``pypi.url``; tests point it at a fake upstream)
    api_base = API_BASE
    feed_url = "https://pypi.org/rss/updates.xml"
    host_concurrency = {"pypi.org": CONCURRENCY}

    def configure(self, settings: Any) -> None:
        """Take ``pypi.url`` from the settings; its host gets the bound of pypi.org."""
        self.api_base = (settings.get("pypi.url") or API_BASE).rstrip("/")
        self.host_concurrency = {urlsplit(self.api_base).hostname or "pypi.org": CONCURRENCY}

    def upstream_url(self, project) -> str:
        """The JSON API URL of *project* (its version_url is ignored)."""
        return f"{self.api_base}/pypi/{quote(project.name.strip(), safe='')}/json"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        data = http.get_json(url, conditional=True, not_found="no such package on PyPI")
        if not isinstance(data, dict):
            raise BackendError(f"{url}: unexpected answer from PyPI (not a JSON object)")
        releases = data.get("releases")
        if isinstance(releases, dict):
            return [version for version, files in releases.items() if not _all_yanked(files)]
        # the API may stop listing releases one day: the current version is better than nothing
        info = data.get("info")
        version = info.get("version") if isinstance(info, dict) else None
        return [version] if isinstance(version, str) and version else []

    def recent_releases(self, http):
        """The latest uploads: RSS items titled ``<name> <version>``."""
        entries = []
        for item in rss_items(http.fetch(self.feed_url).content, self.feed_url):
            parts = item.get("title", "").rsplit(None, 1)
            if len(parts) == 2:
                entries.append(FeedEntry(parts[0], parts[1], f"https://pypi.org/project/{parts[0]}/"))
        return entries


class PypiEcosystem(Ecosystem):
    name = "pypi"
    default_backend = "PyPI"


@hookimpl
def anitrack_declare_settings(settings):
    settings.add("pypi.url", default=API_BASE, check=check_http_url,
                 help="where PyPI's JSON API lives (<url>/pypi/<name>/json): pypi.org, or a mirror of it")


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PypiBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(PypiEcosystem)
