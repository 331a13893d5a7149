"""A backend for a PHP channel server (pear.php.net, pecl.php.net).

Such a channel publishes the versions of a package as the ``<v>`` elements of
its release list in the REST interface,
``https://<channel>/rest/r/<n>/allreleases.xml``, where ``<n>`` is the
project name in lower case with ``-`` read as ``_`` (``PHP-UML`` and
``PHP_UML`` both name ``php_uml``; ``APCu`` names ``apcu``, ``pecl-http``
names ``pecl_http``).  The channel's RSS feed of the latest releases is the
feed of recent releases (:meth:`ChannelBackend.recent_releases`).
"""

from __future__ import annotations

import re
from typing import ClassVar
from urllib.parse import quote

from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.feeds import rss_items
from anitrack_core.errors import BackendError

_VERSION = re.compile(r"<v>\s*([^<\s]+)\s*</v>")


def channel_more_info(site: str, examples: str) -> str:
    """The ``more_info`` of a channel's backend: *site*, and *examples* of equivalent names."""
    return (f"Set the name to the package's name on {site} (letter case and '-' for '_' do not "
            f"matter: {examples}); version_url is not used.")


class ChannelBackend(Backend):
    """What every channel shares; the subclasses set :attr:`site`, :attr:`api_base` and :attr:`feed_url`."""

    #: the channel's site, for the packages' homepages
    site: ClassVar[str]
    #: the channel's server (tests point it at a fake upstream)
    api_base: str
    feed_url: str

    @staticmethod
    def package_key(name: str) -> str:
        """The package's name in REST URLs: lower case, ``-`` replaced by ``_``."""
        return name.strip().lower().replace("-", "_")

    def upstream_url(self, project) -> str:
        """The release list of *project* (version_url is ignored)."""
        return f"{self.api_base}/rest/r/{quote(self.package_key(project.name), safe='')}/allreleases.xml"

    def get_versions(self, project, http):
        key, url = self.package_key(project.name), self.upstream_url(project)
        response = http.fetch(url, conditional=True, not_found=f"no such package: {key}")
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
        for item in rss_items(http.fetch(self.feed_url).content, self.feed_url):
            parts = item.get("title", "").rsplit(None, 1)
            if len(parts) != 2:
                continue
            name, version = parts
            homepage = f"{self.site}/package/{name}"
            entries.append(FeedEntry(name, version, homepage))
            if "_" in name:
                entries.append(FeedEntry(name.replace("_", "-"), version, homepage))
        return entries
