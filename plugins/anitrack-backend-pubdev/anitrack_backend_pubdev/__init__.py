"""The ``pub.dev`` backend and the ``pub`` ecosystem: Dart and Flutter packages on pub.dev.

Versions come from the hosted pub repository API (version 2, asked with
``Accept: application/vnd.pub.v2+json``): ``https://pub.dev/api/packages/<name>``
answers ``{"name", "latest", "versions": [{"version", "retracted", ...}]}``,
oldest first; retracted versions are left out.  pub.dev's Atom feed of
updated packages (``https://pub.dev/feed.atom``) serves as the feed of
recent releases (:meth:`PubDevBackend.recent_releases`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.feeds import rss_items
from anitrack_core.check.http import FetchError
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

ACCEPT = "application/vnd.pub.v2+json"
#: a feed entry's title: ``v1.2.3 of name``
_FEED_TITLE = re.compile(r"^v(\S+) of ([a-z0-9_]+)$")
#: a feed entry's link: ``.../packages/<name>/versions/<version>``
_FEED_LINK = re.compile(r"/packages/([a-z0-9_]+)/versions/([^/?#]+)$")


def _detail(response: Any) -> str:
    """pub.dev's own error message (``{"error": {"code", "message"}}``); for a 404 without one, that
    there is no such package."""
    try:
        error = response.json().get("error")
    except (FetchError, AttributeError):
        error = None
    message = error.get("message") if isinstance(error, dict) else None
    if isinstance(message, str) and message.strip():
        return message.strip()[:300]
    return "no such package on pub.dev" if response.status == 404 else ""


class PubDevBackend(Backend):
    name = "pub.dev"
    examples = ["https://pub.dev/packages/http", "https://pub.dev/packages/provider"]
    more_info = ("Set the name to the package's name on pub.dev (as in https://pub.dev/packages/<name>); "
                 "homepage and version_url are not used to find it. Retracted versions are left out.")
    default_version_scheme = "Semantic"
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://pub.dev"
    feed_url = "https://pub.dev/feed.atom"

    def upstream_url(self, project: Any) -> str:
        """The API URL of *project* (its version_url is ignored)."""
        return f"{self.api_base}/api/packages/{quote((project.name or '').strip(), safe='')}"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        data = http.get_json(url, headers={"Accept": ACCEPT}, conditional=True, detail=_detail)
        versions = data.get("versions") if isinstance(data, dict) else None
        if not isinstance(versions, list):
            raise BackendError(f"{url}: unexpected answer from pub.dev (no list of versions)")
        return [item["version"] for item in versions
                if isinstance(item, dict) and isinstance(item.get("version"), str) and item["version"]
                and item.get("retracted") is not True]

    def recent_releases(self, http: Any) -> list[FeedEntry]:
        """The packages updated lately: Atom entries titled ``v<version> of <name>``."""
        entries = []
        for item in rss_items(http.fetch(self.feed_url).content, self.feed_url):
            found = _FEED_TITLE.match(item.get("title", "").strip())
            if found:
                version, name = found.groups()
            else:
                found = _FEED_LINK.search(urlsplit(item.get("link", "")).path)
                if not found:
                    continue
                name, version = found.groups()
            entries.append(FeedEntry(name, version, f"https://pub.dev/packages/{name}"))
        return entries


class PubEcosystem(Ecosystem):
    name = "pub"
    default_backend = "pub.dev"
    default_version_scheme = "Semantic"
    aliases = ["pub.dev", "dart"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(PubDevBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(PubEcosystem)
