"""The ``GitLab`` backend: every tag of a project on any GitLab instance (REST API v4).

The project is ``version_url``, else the homepage: a URL
``https://<instance>/<group>[/<subgroup>...]/<project>`` (a trailing ``/``,
``.git`` or ``/-/...`` part is ignored).  Its tags are listed by
``https://<instance>/api/v4/projects/<group>%2F...%2F<project>/repository/tags``,
newest (by commit date) first:

* a stored project's check reads every page, 100 tags per page, following
  GitLab's ``X-Next-Page`` header (or its ``Link: rel="next"``), up to
  :data:`MAX_PAGES`; the first page is asked conditionally, so an unchanged
  tag list costs one 304;
* a temporary project (a dry run, a preview) reads the first page with the
  server's default size (20 on gitlab.com), as Anitya did, which is what its
  recorded answers hold.

No token is sent: public projects' tags need none.  A 429 (or a 403 saying
no requests are left) raises :exc:`~anitrack_core.errors.RateLimitError`;
since GitLab instances are many, the limit of one does not pause the others
(``shared_rate_limit = False``).
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, RawVersion
from anitrack_core.errors import BackendError

log = logging.getLogger(__name__)

PAGE_SIZE = 100
MAX_PAGES = 100
_LINK_NEXT = re.compile(r'<([^>]*)>\s*;[^,]*\brel="?next"?', re.IGNORECASE)


def project_path(project: Any) -> tuple[str, str, list[str]] | None:
    """``(scheme, host[:port], [group, ..., project])`` from version_url, else homepage; None if neither fits."""
    source = (getattr(project, "version_url", None) or "").strip() or (getattr(project, "homepage", None) or "").strip()
    if not source:
        return None
    parts = urlsplit(source)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    path = parts.path.split("/-/", 1)[0]
    segments = [segment for segment in path.split("/") if segment]
    if segments:
        segments[-1] = segments[-1].removesuffix(".git")
    if len(segments) < 2 or any(segment in (".", "..") or not segment for segment in segments):
        return None
    return scheme, parts.netloc.rsplit("@", 1)[-1].lower(), segments


def tags_api_url(project: Any) -> str:
    """The tags endpoint of the project's API (first page, server defaults); "" if the project does not name one."""
    found = project_path(project)
    if found is None:
        return ""
    scheme, host, segments = found
    return f"{scheme}://{host}/api/v4/projects/{quote('/'.join(segments), safe='')}/repository/tags"


def next_page(headers: Any) -> int | None:
    """The number of the next page GitLab announces (``X-Next-Page``, else ``Link: rel="next"``), or None."""
    value = (headers.get("X-Next-Page") or "").strip()
    if value:
        return int(value) if value.isdigit() and int(value) > 0 else None
    match = _LINK_NEXT.search(headers.get("Link") or "")
    if match:
        page = dict(parse_qsl(urlsplit(match.group(1)).query)).get("page", "")
        return int(page) if page.isdigit() and int(page) > 0 else None
    return None


class GitLabBackend(Backend):
    name = "GitLab"
    examples = ["https://gitlab.gnome.org/GNOME/gnome-video-arcade", "https://gitlab.com/xonotic/xonotic"]
    more_info = ("Set the homepage (or version_url) to the project's address on its GitLab instance, "
                 "https://<instance>/<group>[/<subgroup>...]/<project>. Every tag is read.")
    shared_rate_limit = False  # many instances: one's limit must not pause the others

    def get_versions(self, project: Any, http: Any) -> list[RawVersion]:
        base = tags_api_url(project)
        if not base:
            raise BackendError(
                f"{project.name}: project incorrectly set up for GitLab: set the homepage or version_url to "
                "https://<instance>/<group>/<project>")
        preview = project.id is None
        url = base if preview else f"{base}?per_page={PAGE_SIZE}"
        versions: list[RawVersion] = []
        seen: set[str] = set()
        for number in range(1, MAX_PAGES + 1):
            response = http.fetch(url, headers={"Accept": "application/json"}, conditional=number == 1,
                                  detail=_message)
            tags = self._tags(response, project, url)
            for tag in tags:
                name = tag.get("name") if isinstance(tag, dict) else None
                if isinstance(name, str) and name and name not in seen:
                    seen.add(name)
                    versions.append(RawVersion(name, _commit_url(tag)))
            following = next_page(response.headers)
            if preview or following is None or following <= number or not tags:
                break
            if number == MAX_PAGES:
                log.warning("%s: stopped after %d pages of tags at %s; older ones not read",
                            project.name, MAX_PAGES, base)
                break
            url = f"{base}?page={following}&per_page={PAGE_SIZE}"
        if not versions:
            raise BackendError(f"{project.name}: No upstream version found. - {base}")
        return versions

    def _tags(self, response: Any, project: Any, url: str) -> list[Any]:
        try:
            tags = response.json()
        except BackendError:
            raise BackendError(f"{project.name}: GitLab's answer is not JSON - {url}") from None
        if not isinstance(tags, list):
            raise BackendError(f"{project.name}: unexpected answer from GitLab (not a list of tags) - {url}")
        return tags


def _commit_url(tag: dict) -> str | None:
    commit = tag.get("commit")
    url = commit.get("web_url") if isinstance(commit, dict) else None
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else None


def _message(response: Any) -> str:
    try:
        body = response.json()
    except BackendError:
        return ""
    message = body.get("message") or body.get("error") if isinstance(body, dict) else None
    return message.strip()[:300] if isinstance(message, str) else ""


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GitLabBackend)
