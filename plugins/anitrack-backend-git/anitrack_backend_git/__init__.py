"""The ``git`` backend: the tags of any git repository served over HTTP(S), without a git binary.

The tags come from the reference advertisement of git's smart HTTP protocol,
``GET <repository>/info/refs?service=git-upload-pack``, answered with the
content type ``application/x-git-upload-pack-advertisement`` as pkt-lines
(git's ``Documentation/gitprotocol-http.txt`` and ``gitprotocol-common.txt``):

* each pkt-line is four hexadecimal digits giving its length (the four
  included), then that many bytes; ``0000`` is a flush-pkt;
* the answer opens with ``# service=git-upload-pack`` and a flush-pkt, then one
  line per reference, ``<object id> <refname>``, the first one followed by a
  NUL and the server's capabilities, and ends with a flush-pkt;
* an annotated tag is listed twice: ``refs/tags/v1.0`` (the tag object) and
  ``refs/tags/v1.0^{}`` (peeled: the commit); the version is ``v1.0``, once.

A server of the "dumb" protocol answers the same URL with the plain
``info/refs`` file (``<object id> TAB <refname>`` lines, any other content
type); that is read too.  Requests go through the check's ``http`` like any
backend's: the address guard, the size cap (a repository whose advertisement
is larger than ``max_response_bytes``, such as one with very many pull-request
refs, fails with a clear error) and the deadline apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, RawVersion
from anitrack_core.errors import BackendError

SMART_TYPE = "application/x-git-upload-pack-advertisement"
_OBJECT_ID = re.compile(rb"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
TAG_PREFIX = b"refs/tags/"
PEELED = b"^{}"


class PktLineError(ValueError):
    """The bytes are not a well-formed pkt-line stream."""


def pkt_lines(data: bytes) -> Iterator[bytes | None]:
    """The payloads of the pkt-lines in *data*, None for a flush-pkt (``0000``).

    :raises PktLineError: a length that is not four hexadecimal digits, or past the end.
    """
    position = 0
    while position < len(data):
        head = data[position:position + 4]
        if len(head) < 4 or not re.fullmatch(rb"[0-9a-fA-F]{4}", head):
            raise PktLineError(f"bad pkt-line length {head[:4]!r} at byte {position}")
        length = int(head, 16)
        if length == 0:
            yield None
            position += 4
            continue
        if length in (1, 2):  # delim-pkt / response-end-pkt (protocol v2): no payload
            yield None
            position += 4
            continue
        if length < 4 or position + length > len(data):
            raise PktLineError(f"pkt-line of length {length} at byte {position} runs past the answer")
        yield data[position + 4:position + length]
        position += length


def _ref_line(payload: bytes) -> tuple[bytes, bytes] | None:
    """``(object id, refname)`` of one advertised reference line, None for any other line."""
    line = payload.split(b"\0", 1)[0].rstrip(b"\n")
    object_id, _, refname = line.partition(b" ")
    return (object_id, refname) if _OBJECT_ID.match(object_id) and refname else None


def smart_refs(data: bytes) -> list[bytes]:
    """The refnames of a smart-HTTP reference advertisement, in the server's order.

    :raises PktLineError: the answer is not a pkt-line advertisement.
    """
    refs = []
    for payload in pkt_lines(data):
        if payload is None or payload.startswith((b"# service=", b"version ")):
            continue
        found = _ref_line(payload)
        if found is None:
            raise PktLineError(f"unexpected pkt-line {payload[:60]!r}")
        refs.append(found[1])
    return refs


def dumb_refs(data: bytes) -> list[bytes]:
    """The refnames of a dumb server's ``info/refs`` file (``<id>\\t<refname>`` lines).

    :raises PktLineError: a line is not of that form.
    """
    refs = []
    for line in data.splitlines():
        if not line.strip():
            continue
        object_id, tab, refname = line.partition(b"\t")
        if not tab or not _OBJECT_ID.match(object_id) or not refname.strip():
            raise PktLineError(f"unexpected line {line[:60]!r}")
        refs.append(refname.strip())
    return refs


def tag_names(refnames: list[bytes]) -> list[str]:
    """The tags among *refnames*, peeled ones (``^{}``) counted once, in order."""
    tags: list[str] = []
    for refname in refnames:
        if not refname.startswith(TAG_PREFIX):
            continue
        name = refname[len(TAG_PREFIX):].removesuffix(PEELED).decode("utf-8", "replace")
        if name and name not in tags:
            tags.append(name)
    return tags


def repository_url(project: Any) -> str:
    """The repository's URL (version_url), checked, without a trailing ``/``.

    :raises BackendError: version_url is not an http(s) URL of a repository.
    """
    url = (project.version_url or "").strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("https", "http") or not parts.netloc or parts.query or parts.fragment:
        raise BackendError(f"{project.name}: project incorrectly set up for git: set version_url to the "
                           "repository's HTTPS URL, as given to git clone (https://host/owner/repo.git)")
    return url.rstrip("/")


def _credentials(response: Any) -> str:
    if response.status in (401, 403):
        return "the repository asks for credentials: it is private or does not exist"
    return ""


class GitBackend(Backend):
    name = "git"
    examples = ["https://git.kernel.org/pub/scm/git/git.git", "https://codeberg.org/forgejo/forgejo.git"]
    more_info = ("Set version_url to the repository's HTTPS URL, as given to git clone. Every tag is read from "
                 "the repository's smart-HTTP reference advertisement (no git binary); annotated tags count once.")
    required_version_url = True
    #: any server: a rate limit only reschedules the project that hit it
    shared_rate_limit = False

    def upstream_url(self, project: Any) -> str:
        """The reference advertisement of *project*'s repository."""
        return f"{repository_url(project)}/info/refs?service=git-upload-pack"

    def get_versions(self, project: Any, http: Any) -> list[RawVersion]:
        url = self.upstream_url(project)
        response = http.fetch(url, conditional=True, not_found="no git repository at this address",
                              detail=_credentials)
        content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        try:
            refs = smart_refs(response.content) if content_type == SMART_TYPE else dumb_refs(response.content)
        except PktLineError as exc:
            kind = "reference advertisement" if content_type == SMART_TYPE else "git info/refs file"
            raise BackendError(f"{url}: the answer is not a {kind} ({exc})") from None
        return [RawVersion(tag) for tag in tag_names(refs)]


@hookimpl
def anitrack_register_backends(registry):
    registry.add(GitBackend)
