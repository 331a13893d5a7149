"""The ``crates.io`` backend and the ``crates.io`` ecosystem (alias ``cargo``): Rust crates.

Versions are the ``num`` of the entries of ``versions`` at
``https://crates.io/api/v1/crates/<name>/versions`` that are not yanked, in
the API's order (newest first).  When the API pages its answer
(``meta.next_page``) the following pages are read too, up to
:data:`MAX_PAGES`.  The summary's ``just_updated`` list serves as the feed
of recent releases (:meth:`CratesBackend.recent_releases`).
"""

from __future__ import annotations

from urllib.parse import quote, urljoin

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.http import FetchError
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError

#: pages of versions read at most (the API answers 100 or more versions a page)
MAX_PAGES = 20


def _detail(response) -> str:
    """The API's own explanation of an error (``{"errors": [{"detail": ...}]}``), or ""."""
    try:
        errors = response.json().get("errors")
        return "; ".join(str(error["detail"]) for error in errors if isinstance(error, dict) and "detail" in error)
    except (FetchError, AttributeError, TypeError):
        return ""


class CratesBackend(Backend):
    name = "crates.io"
    examples = ["https://crates.io/crates/clap", "https://crates.io/crates/serde"]
    more_info = ("Set the name to the crate's name on crates.io; homepage and version_url are not used to "
                 "find it. Yanked versions are left out.")
    #: where the API lives (tests point it at a fake upstream)
    api_base = "https://crates.io"
    feed_url = "https://crates.io/api/v1/summary"

    def upstream_url(self, project) -> str:
        """The API URL of *project*'s versions (its version_url is ignored)."""
        return f"{self.api_base}/api/v1/crates/{quote(project.name.strip(), safe='')}/versions"

    def _page(self, http, url: str, *, conditional: bool) -> dict:
        response = http.fetch(url, conditional=conditional, detail=_detail)
        try:
            data = response.json()
        except FetchError as exc:
            raise BackendError(f"Failed to decode JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("versions"), list):
            raise BackendError(f"Failed to decode JSON: {url}: no list of versions in the answer")
        return data

    def get_versions(self, project, http):
        url = self.upstream_url(project)
        data = self._page(http, url, conditional=True)
        found = []
        for page in range(MAX_PAGES):
            found.extend(item["num"] for item in data["versions"]
                         if isinstance(item, dict) and isinstance(item.get("num"), str) and not item.get("yanked"))
            meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
            following = meta.get("next_page")
            if not isinstance(following, str) or not following or page == MAX_PAGES - 1:
                break
            data = self._page(http, urljoin(url, following), conditional=False)
        return found

    def recent_releases(self, http):
        """The crates updated lately (``just_updated`` of the API summary) with their newest version."""
        data = http.get_json(self.feed_url)
        updated = data.get("just_updated") if isinstance(data, dict) else None
        if not isinstance(updated, list):
            raise BackendError(f"{self.feed_url}: unexpected answer (no just_updated list)")
        entries = []
        for crate in updated:
            if not isinstance(crate, dict) or not isinstance(crate.get("name"), str):
                continue
            version = crate.get("newest_version") or crate.get("max_version")
            if isinstance(version, str) and version:
                homepage = crate.get("homepage") if isinstance(crate.get("homepage"), str) else None
                entries.append(FeedEntry(crate["name"], version,
                                         homepage or f"https://crates.io/crates/{crate['name']}"))
        return entries


class CratesEcosystem(Ecosystem):
    name = "crates.io"
    default_backend = "crates.io"
    aliases = ["cargo"]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(CratesBackend)


@hookimpl
def anitrack_register_ecosystems(registry):
    registry.add(CratesEcosystem)
