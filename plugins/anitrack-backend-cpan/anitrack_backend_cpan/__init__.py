"""The ``CPAN (perl)`` backend: Perl distributions on CPAN, through metacpan.org.

The versions are the release tarballs (``<name>-<version>.tar.gz``) linked
from the distribution's page ``https://metacpan.org/dist/<name>/``, found
with the default regex.  The name is the distribution's name, with dashes
(``Net-Whois-Raw``, not ``Net::Whois::Raw``).  MetaCPAN's RSS feed of recent
uploads is the feed of recent releases (:meth:`CpanBackend.recent_releases`).
"""

from __future__ import annotations

from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import FeedEntry
from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.check.feeds import rss_items


class CpanBackend(RegexPageBackend):
    name = "CPAN (perl)"
    examples = ["https://metacpan.org/dist/Net-Whois-Raw/", "https://metacpan.org/dist/SOAP/"]
    more_info = ("Set the name to the CPAN distribution's name, with dashes (Net-Whois-Raw for the module "
                 "Net::Whois::Raw), as in https://metacpan.org/dist/<name>/; version_url is not used. Perl "
                 "decimal versions (1.04 after 1.3) may need a version scheme other than the default.")
    #: where MetaCPAN lives (tests point it at a fake upstream)
    api_base = "https://metacpan.org"
    feed_url = "https://metacpan.org/feed/recent"
    not_found = "no such distribution on CPAN"

    def page_url(self, project) -> str:
        """The distribution's page on MetaCPAN (version_url is ignored)."""
        return f"{self.api_base}/dist/{quote(project.name.strip(), safe='')}/"

    upstream_url = page_url

    def recent_releases(self, http):
        """Recent uploads: RSS items titled ``<distribution>-<version>``."""
        entries = []
        for item in rss_items(http.fetch(self.feed_url).content, self.feed_url):
            name, _, version = item.get("title", "").strip().rpartition("-")
            if name and version:
                entries.append(FeedEntry(name, version, f"https://metacpan.org/dist/{name}/"))
        return entries


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CpanBackend)
