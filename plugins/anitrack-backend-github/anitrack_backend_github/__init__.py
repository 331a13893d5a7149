"""The ``GitHub`` backend: every tag (or release) of a repository, from the GitHub GraphQL API.

The repository is ``version_url`` (``owner/repo``, or a github.com URL), else
the homepage when it is a github.com URL.  Tags are read ordered by the date
of their commit, releases by creation date, newest page first, 100 per
request, following the pagination cursors:

* the first check of a project reads every page (up to ``github.max_pages``);
* later checks stop at the page holding the version the project already knows
  as its newest (the position stored in the project's ``latest_version_cursor``),
  so a steady project costs one request; a tag pushed since then on an *older*
  commit is only seen once the project is checked from scratch;
* a temporary project (a dry run, a preview) reads the newest page only, like
  Anitya did, which is what its recorded answers hold.

The API needs a token: the setting ``github.token`` (``[github] token`` in the
configuration file, or ``ANITRACK_GITHUB_TOKEN``).  It is sent only to the API
(the HTTP client drops it on a redirect to another host) and never shows in a
message or a log.  A rate limit (a 403/429 answer, a ``RATE_LIMITED`` GraphQL
error, or no requests left while pages remain) raises
:exc:`~anitrack_core.errors.RateLimitError` with the reset time GitHub gave,
and pauses every GitHub check until then (``shared_rate_limit``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from anitrack_core import hookimpl
from anitrack_core.config import check_http_url
from anitrack_core.backend import Backend, RawVersion
from anitrack_core.check.http import rate_limit_reset
from anitrack_core.errors import BackendError, RateLimitError

log = logging.getLogger(__name__)

API_URL = "https://api.github.com/graphql"
#: requests in flight at once to the API's host (GitHub's secondary rate limits punish more)
CONCURRENCY = 16
#: the most GitHub returns for one page
PAGE_SIZE = 100
MAX_PAGES = 100
#: first word of the positions this backend stores in ``latest_version_cursor``
CURSOR_TAG = "github/1"

_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_HOSTS = {"github.com", "www.github.com"}

_TARGET = "target { commitUrl ... on Tag { target { commitUrl } } }"
TAGS_QUERY = """query($owner: String!, $name: String!, $count: Int!, $before: String) {
  repository(owner: $owner, name: $name) {
    refs(refPrefix: "refs/tags/", orderBy: {field: TAG_COMMIT_DATE, direction: ASC}, last: $count,
         before: $before) {
      totalCount
      pageInfo { hasPreviousPage startCursor }
      edges { cursor node { name %s } }
    }
  }
  rateLimit { limit remaining resetAt }
}""" % _TARGET
RELEASES_QUERY = """query($owner: String!, $name: String!, $count: Int!, $before: String) {
  repository(owner: $owner, name: $name) {
    releases(orderBy: {field: CREATED_AT, direction: ASC}, last: $count, before: $before) {
      totalCount
      pageInfo { hasPreviousPage startCursor }
      edges { cursor node { tag { name %s } } }
    }
  }
  rateLimit { limit remaining resetAt }
}""" % _TARGET


# ---- which repository ----

def _github_path(url: str) -> list[str] | None:
    """The path segments of a github.com URL, or None when *url* is not one."""
    parts = urlsplit(url if "://" in url else f"https://{url}")
    if parts.scheme.lower() not in ("http", "https") or (parts.hostname or "").lower() not in _HOSTS:
        return None
    return [segment for segment in parts.path.split("/") if segment]


def repository_of(project: Any) -> tuple[str, str] | None:
    """``(owner, repo)`` of *project*, or None when neither version_url nor homepage names one.

    version_url is ``owner/repo`` (one trailing ``/`` or ``.git`` allowed) or a
    github.com URL; otherwise the homepage must be a github.com URL.  Of a URL
    the first two path segments are taken (``.../owner/repo/releases`` works).
    """
    version_url = (getattr(project, "version_url", None) or "").strip()
    homepage = (getattr(project, "homepage", None) or "").strip()
    if version_url:
        segments = _github_path(version_url) if "://" in version_url or version_url.lower().startswith(
            ("github.com/", "www.github.com/")) else None
        if segments is None:
            segments = version_url.removesuffix("/").split("/")
            if len(segments) != 2:
                return None
    else:
        segments = _github_path(homepage) if homepage else None
    if not segments or len(segments) < 2:
        return None
    owner, repo = segments[0], segments[1].removesuffix(".git")
    if not _OWNER.match(owner) or not _REPO.match(repo) or repo in (".", ".."):
        return None
    return owner, repo


def versions_page_url(project: Any) -> str:
    """The page of the project's tags (releases with ``releases_only``) on github.com; "" if not set up."""
    found = repository_of(project)
    if found is None:
        return ""
    kind = "releases" if getattr(project, "releases_only", False) else "tags"
    return f"https://github.com/{found[0]}/{found[1]}/{kind}"


# ---- the position stored between checks ----

def make_cursor(kind: str, owner: str, repo: str, tag: str) -> str:
    """What this backend stores in ``latest_version_cursor``: where a version is upstream."""
    return f"{CURSOR_TAG} {kind} {owner}/{repo} {tag}"


def known_tag(cursor: str | None, kind: str, owner: str, repo: str) -> str | None:
    """The tag a stored cursor names, if it was made for this repository and kind (else None)."""
    parts = (cursor or "").split(" ", 3)
    if len(parts) != 4 or parts[0] != CURSOR_TAG or parts[1] != kind:
        return None
    if parts[2].casefold() != f"{owner}/{repo}".casefold() or not parts[3]:
        return None
    return parts[3]


# ---- one page of answer ----

@dataclass
class Page:
    """One GraphQL answer: its versions oldest first, and where the next (older) page starts."""

    items: list[tuple[str, str | None]] = field(default_factory=list)
    #: edges in the answer (releases without a tag count, but give no item)
    edges: int = 0
    total: int | None = None
    #: None when the answer has no pageInfo: then totalCount tells
    has_older: bool | None = None
    older_cursor: str | None = None
    remaining: int | None = None
    reset_at: datetime | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def _commit_url(target: Any) -> str | None:
    if not isinstance(target, dict):
        return None
    inner = target.get("target")  # an annotated tag: the commit it points to
    if isinstance(inner, dict) and isinstance(inner.get("commitUrl"), str):
        return inner["commitUrl"]
    url = target.get("commitUrl")
    return url if isinstance(url, str) else None


def _iso(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


class GitHubBackend(Backend):
    name = "GitHub"
    examples = ["https://github.com/fedora-infra/fedocal", "https://github.com/fedora-infra/pkgdb2"]
    more_info = ("Set version_url to owner/repo (or leave it empty when the homepage is "
                 "https://github.com/owner/repo). Every tag is read, or every release with 'releases only'. "
                 "The service needs a GitHub token (setting github.token).")
    shared_rate_limit = True
    host_concurrency = {"api.github.com": CONCURRENCY}

    def __init__(self) -> None:
        self._token: str | None = None
        self.api_url = API_URL
        self.max_pages = MAX_PAGES

    def configure(self, settings: Mapping[str, Any]) -> None:
        """Take ``github.token``, ``github.api_url`` and ``github.max_pages`` from the settings."""
        token = settings.get("github.token")
        self._token = token.strip() if isinstance(token, str) and token.strip() else None
        self.api_url = settings.get("github.api_url") or API_URL
        self.host_concurrency = {urlsplit(self.api_url).hostname or "api.github.com": CONCURRENCY}
        self.max_pages = int(settings.get("github.max_pages") or MAX_PAGES)

    def __repr__(self) -> str:  # never the token
        return f"<GitHubBackend {self.api_url} token={'set' if self._token else 'missing'}>"

    # ---- the check ----

    def get_versions(self, project: Any, http: Any) -> list[RawVersion]:
        found = repository_of(project)
        if found is None:
            raise BackendError(
                f"{project.name}: project incorrectly set up for GitHub: set version_url to owner/repo, or the "
                "homepage to https://github.com/owner/repo")
        if not self._token:
            raise BackendError(
                f"{project.name}: no GitHub token configured; the GitHub API needs one (setting github.token: "
                f"[github] token in the configuration file, or ANITRACK_GITHUB_TOKEN) - {self.api_url}")
        owner, repo = found
        kind = "releases" if project.releases_only else "tags"
        known = known_tag(getattr(project, "latest_version_cursor", None), kind, owner, repo)
        pages = 1 if project.id is None else max(1, self.max_pages)

        versions: list[RawVersion] = []
        seen: set[str] = set()
        before: str | None = None
        read = 0
        for number in range(1, pages + 1):
            page = self._page(http, project, owner, repo, kind, before)
            read += page.edges
            for tag, commit_url in reversed(page.items):  # newest first
                if tag not in seen:
                    seen.add(tag)
                    versions.append(RawVersion(tag, commit_url, make_cursor(kind, owner, repo, tag)))
            if known is not None and known in seen:
                log.debug("%s: reached the known tag %s on page %d", project.name, known, number)
                break
            older = page.has_older if page.has_older is not None else (page.total or 0) > read
            if not (older and page.edges and page.older_cursor and page.older_cursor != before):
                break
            if number == pages:
                if project.id is not None:
                    log.warning("%s: stopped after %d pages of %s of %s/%s (github.max_pages); older ones not read",
                                project.name, pages, kind, owner, repo)
                break
            if page.remaining == 0:
                raise self._rate_limited(page.reset_at, page.headers)
            before = page.older_cursor
        if not versions:
            raise BackendError(f"{project.name}: No upstream version found. - {versions_page_url(project)}")
        log.debug("%s: %d %s read from %s/%s", project.name, read, kind, owner, repo)
        return versions

    # ---- one request ----

    def _page(self, http: Any, project: Any, owner: str, repo: str, kind: str, before: str | None) -> Page:
        query = RELEASES_QUERY if kind == "releases" else TAGS_QUERY
        variables = {"owner": owner, "name": repo, "count": PAGE_SIZE, "before": before}
        response = http.post(self.api_url, json={"query": query, "variables": variables},
                             headers={"Authorization": f"bearer {self._token}", "Accept": "application/json"})
        headers = response.headers
        message = _error_message(response)
        if _is_rate_limited(response, message):
            raise self._rate_limited(None, headers)
        http.raise_for_status(response, self.api_url, detail=lambda answer: _explained(answer, message))
        try:
            payload = response.json()
        except BackendError:
            raise BackendError(f"{project.name}: GitHub's answer is not JSON - {self.api_url}") from None
        if not isinstance(payload, dict):
            raise BackendError(f"{project.name}: unexpected answer from GitHub - {self.api_url}")
        data = payload.get("data") if isinstance(payload.get("data"), dict) else {}
        limits = data.get("rateLimit") if isinstance(data.get("rateLimit"), dict) else {}
        errors = payload.get("errors")
        if errors:
            errors = errors if isinstance(errors, list) else [errors]
            if any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors):
                raise self._rate_limited(_iso(limits.get("resetAt")), headers)
            described = "; ".join(_describe(e) for e in errors)
            raise BackendError(f"{project.name}: GitHub answered with errors: {described}")
        repository = data.get("repository")
        if not isinstance(repository, dict):
            raise BackendError(f"{project.name}: GitHub has no repository {owner}/{repo}")
        connection = repository.get("releases" if kind == "releases" else "refs")
        if not isinstance(connection, dict):
            raise BackendError(f"{project.name}: unexpected answer from GitHub (no {kind}) - {self.api_url}")
        remaining = limits.get("remaining")
        page = Page(total=_int(connection.get("totalCount")),
                    remaining=_int(headers.get("X-RateLimit-Remaining") if remaining is None else remaining),
                    reset_at=_iso(limits.get("resetAt")), headers=headers)
        edges = connection.get("edges") if isinstance(connection.get("edges"), list) else []
        page.edges = len(edges)
        for edge in edges:
            node = edge.get("node") if isinstance(edge, dict) else None
            if not isinstance(node, dict):
                continue
            if kind == "releases":
                node = node.get("tag")  # a release without a tag (a draft) has no version
                if not isinstance(node, dict):
                    continue
            tag = node.get("name")
            if isinstance(tag, str) and tag:
                page.items.append((tag, _commit_url(node.get("target"))))
        first_cursor = next((e["cursor"] for e in edges if isinstance(e, dict) and isinstance(e.get("cursor"), str)),
                            None)
        info = connection.get("pageInfo")
        if isinstance(info, dict):
            page.has_older = bool(info.get("hasPreviousPage"))
            start = info.get("startCursor")
            page.older_cursor = start if isinstance(start, str) and start else first_cursor
        else:  # an answer without pageInfo (as recorded for older queries): totalCount tells
            page.older_cursor = first_cursor
        return page

    def _rate_limited(self, reset_at: datetime | None, headers: Mapping[str, str] | None) -> RateLimitError:
        now = datetime.now(timezone.utc)
        headers = headers or {}
        if headers.get("Retry-After"):  # a secondary limit: wait what it asks, not until the hourly reset
            reset = rate_limit_reset({"Retry-After": headers["Retry-After"]}, now)
        elif headers.get("X-RateLimit-Reset"):
            reset = rate_limit_reset(headers, now)
        else:
            stamp = {"X-RateLimit-Reset": str(reset_at.timestamp())} if reset_at else {}
            reset = rate_limit_reset(stamp, now)
        return RateLimitError(f'GitHub: Rate limit was reached. Will be reset in "{reset.isoformat()}".', reset)


def _error_message(response: Any) -> str:
    """GitHub's ``message`` of a JSON error answer, or ""."""
    if response.ok:
        return ""
    try:
        body = response.json()
    except BackendError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    return message.strip()[:300] if isinstance(message, str) else ""


def _explained(response: Any, message: str) -> str:
    """GitHub's message of an error answer, and what to do about a 401."""
    hint = "check the token (github.token)" if response.status == 401 else ""
    return "; ".join(part for part in (message, hint) if part)


def _is_rate_limited(response: Any, message: str) -> bool:
    if response.status == 429:
        return True
    if response.status != 403:
        return False
    remaining = (response.headers.get("X-RateLimit-Remaining") or "").strip()
    return remaining == "0" or bool(response.headers.get("Retry-After")) or "rate limit" in message.lower()


def _describe(error: Any) -> str:
    if not isinstance(error, dict):
        return str(error)[:300]
    kind = error.get("type")
    message = str(error.get("message") or "").strip()[:300]
    return f"{kind}: {message}" if kind else message or "unknown error"


@hookimpl
def anitrack_declare_settings(settings):
    settings.add("github.token", secret=True,
                 help="token for the GitHub GraphQL API; the GitHub backend cannot check without one "
                      "(a personal access token with no scope is enough for public repositories)")
    settings.add("github.api_url", default=API_URL, check=check_http_url,
                 help="the GitHub GraphQL endpoint (GitHub Enterprise: https://<host>/api/graphql)")
    settings.add("github.max_pages", type=int, default=MAX_PAGES, check=_check_positive,
                 help=f"most pages of {PAGE_SIZE} tags or releases read in one check of one project")


def _check_positive(value: int | None) -> str | None:
    return "must be greater than 0" if value is not None and value <= 0 else None


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GitHubBackend)
