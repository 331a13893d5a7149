"""The ``PECL`` backend: PHP extensions on pecl.php.net.

The versions are the ``<v>`` elements of the package's release list in the
PECL REST interface, ``https://pecl.php.net/rest/r/<n>/allreleases.xml``,
where ``<n>`` is the project name in lower case with ``-`` read as ``_``
(``APCu`` names ``apcu``, ``pecl-http`` names ``pecl_http``).  The
channel's RSS feed of the latest releases is the feed of recent releases
(:meth:`PeclBackend.recent_releases`).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.feeds import fetch_feed, rss_items
from anitrack_core.errors import BackendError

_VERSION = re.compile(r"<v>\s*([^<\s]+)\s*</v>")


class PeclBackend(Backend):
    name = "PECL"
    examples = ["https://pecl.php.net/package/inotify", "https://pecl.php.net/package/gnupg"]
    more_info = ("Set the name to the package's name on pecl.php.net (letter case and '-' for '_' do not "
                 "matter: pecl_http, pecl-http); version_url is not used.")
    #: the channel's server (tests point it at a fake upstream)
    api_base = "https://pecl.php.net"
    feed_url = "https://pecl.php.net/feeds/latest.rss"

    @staticmethod
    def package_key(name: str) -> str:
        """The package's name in REST URLs: lower case, ``-`` replaced by ``_``."""
        return name.strip().lower().replace("-", "_")

    def upstream_url(self, project) -> str:
        """The release list of *project* (version_url is ignored)."""
        return f"{self.api_base}/rest/r/{quote(self.package_key(project.name), safe='')}/allreleases.xml"

    def get_versions(self, project, http):
        key, url = self.package_key(project.name), self.upstream_url(project)
        response = http.get(url, conditional=True)
        http.raise_for_rate_limit(response)
        if response.status == 404:
            raise BackendError(f"No versions found for {key}: no such package at {url} (HTTP 404)")
        if not response.ok:
            raise BackendError(f'{url}: server responded with status {response.status} "{response.reason}"')
        found = _VERSION.findall(response.text)
        if not found:
            raise BackendError(f"No versions found for {key} at {url}")
        return found

    def recent_releases(self, http):
        """The channel's latest releases: RSS items titled ``<package> <version>``.

        A package whose name holds ``_`` is also announced under its ``-``
        spelling, which names the same package here.
        """
        entries = []
        for item in rss_items(fetch_feed(http, self.feed_url).content, self.feed_url):
            parts = item.get("title", "").rsplit(None, 1)
            if len(parts) != 2:
                continue
            name, version = parts
            homepage = f"https://pecl.php.net/package/{name}"
            entries.append(FeedEntry(name, version, homepage))
            if "_" in name:
                entries.append(FeedEntry(name.replace("_", "-"), version, homepage))
        return entries


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PeclBackend)
