"""The ``Rubygems`` backend and the ``rubygems`` ecosystem: Ruby gems on rubygems.org.

The version is the ``version`` of ``https://rubygems.org/api/v1/versions/<name>/latest.json``:
only the newest release, so older ones published in between two checks are
not seen (Anitya reads the same document).  ``just_updated.json`` is the feed
of recent releases (:meth:`RubygemsBackend.recent_releases`).
"""

from __future__ import annotations

from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.http import FetchError
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError


class RubygemsBackend(Backend):
    name = "Rubygems"
    examples = ["https://rubygems.org/gems/aa", "https://rubygems.org/gems/bio"]
    more_info = ("Set the name to the gem's name on rubygems.org; homepage and version_url are not used to "
                 "find it. Only the newest version is read at each check.")
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://rubygems.org"
    feed_url = "https://rubygems.org/api/v1/activity/just_updated.json"

    def upstream_url(self, project) -> str:
        """The API URL of *project*'s newest version (its version_url is ignored)."""
        return f"{self.api_base}/api/v1/versions/{quote(project.name.strip(), safe='')}/latest.json"

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        response = http.fetch(url, conditional=True, not_found="no such gem on rubygems.org")
        try:
            data = response.json()
        except FetchError:
            raise BackendError(f"No JSON returned by {url}") from None
        version = data.get("version") if isinstance(data, dict) else None
        if not isinstance(version, str):
            raise BackendError(f"No JSON returned by {url}: no version in the answer")
        if not version or version == "unknown":
            raise BackendError(f"Project or version unknown at {url}")
        return [version]

    def recent_releases(self, http):
        """The gems updated lately, with the version each one received."""
        data = http.get_json(self.feed_url)
        if not isinstance(data, list):
            raise BackendError(f"{self.feed_url}: unexpected answer (not a list of gems)")
        return [FeedEntry(gem["name"], gem["version"], f"https://rubygems.org/gems/{gem['name']}")
                for gem in data
                if isinstance(gem, dict) and isinstance(gem.get("name"), str) and isinstance(gem.get("version"), str)]


class RubygemsEcosystem(Ecosystem):
    name = "rubygems"
    default_backend = "Rubygems"


@hookimpl
def anitrack_register_backends(registry):
    registry.add(RubygemsBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(RubygemsEcosystem)
