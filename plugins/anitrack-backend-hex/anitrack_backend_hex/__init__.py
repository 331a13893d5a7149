"""The ``Hex`` backend and the ``hex`` ecosystem: Erlang, Elixir and Gleam packages on hex.pm.

Versions come from the hex.pm HTTP API: ``https://hex.pm/api/packages/<name>``
answers ``{"name", "releases": [{"version", "url", "inserted_at"}],
"retirements": {"<version>": {"reason", "message"}}, ...}``, newest first.
Retired releases (their authors advise against them) are left out.  The
first page of ``/api/packages?sort=updated_at`` serves as the feed of recent
releases (:meth:`HexBackend.recent_releases`).  hex.pm's rate limit
(``429`` with ``X-RateLimit-Reset``) pauses every Hex check.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.http import FetchError
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError


def _detail(response: Any) -> str:
    """hex.pm's own error message (``{"status", "message"}``); for a 404 without one, that there is
    no such package."""
    try:
        message = response.json().get("message")
    except (FetchError, AttributeError):
        message = None
    if isinstance(message, str) and message.strip() and response.status != 404:
        return message.strip()[:300]
    return "no such package on hex.pm" if response.status == 404 else ""


def _version(release: Any) -> str | None:
    version = release.get("version") if isinstance(release, dict) else None
    return version if isinstance(version, str) and version else None


class HexBackend(Backend):
    name = "Hex"
    examples = ["https://hex.pm/packages/phoenix", "https://hex.pm/packages/jason"]
    more_info = ("Set the name to the package's name on hex.pm (as in https://hex.pm/packages/<name>); "
                 "homepage and version_url are not used to find it. Retired releases are left out.")
    default_version_scheme = "Semantic"
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://hex.pm"
    feed_url = "https://hex.pm/api/packages?sort=updated_at"

    def upstream_url(self, project: Any) -> str:
        """The API URL of *project* (its version_url is ignored)."""
        return f"{self.api_base}/api/packages/{quote((project.name or '').strip(), safe='')}"

    def get_versions(self, project: Any, http: Any) -> list[str]:
        url = self.upstream_url(project)
        data = http.get_json(url, conditional=True, detail=_detail)
        releases = data.get("releases") if isinstance(data, dict) else None
        if not isinstance(releases, list):
            raise BackendError(f"{url}: unexpected answer from hex.pm (no list of releases)")
        retired = data.get("retirements")
        retired = retired if isinstance(retired, dict) else {}
        return [version for version in map(_version, releases) if version and version not in retired]

    def recent_releases(self, http: Any) -> list[FeedEntry]:
        """The packages updated lately, with their newest version."""
        packages = http.get_json(self.feed_url)
        if not isinstance(packages, list):
            raise BackendError(f"{self.feed_url}: unexpected answer from hex.pm (not a list of packages)")
        entries = []
        for package in packages:
            name = package.get("name") if isinstance(package, dict) else None
            if not isinstance(name, str) or not name:
                continue
            version = package.get("latest_version")
            if not isinstance(version, str) or not version:
                releases = package.get("releases")
                version = _version(releases[0]) if isinstance(releases, list) and releases else None
            if version:
                homepage = package.get("html_url")
                entries.append(FeedEntry(name, version,
                                         homepage if isinstance(homepage, str) else f"https://hex.pm/packages/{name}"))
        return entries


class HexEcosystem(Ecosystem):
    name = "hex"
    default_backend = "Hex"
    default_version_scheme = "Semantic"
    aliases = ["hex.pm"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(HexBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(HexEcosystem)
