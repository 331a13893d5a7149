"""The values of the HTTP layer: policy, answers, validators and errors.

:mod:`anitrack_core.check.http` re-exports them all; import them from there.

:class:`FetchPolicy` says what every upstream request must respect,
:class:`HttpResponse` is a complete upstream answer, :class:`Validators` the
cache validators of one, and the exceptions are what a fetch raises.
"""

from __future__ import annotations

import email.message
import json as jsonlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from requests.structures import CaseInsensitiveDict

from ... import core_version
from ...errors import BackendError

EPOCH_HTTP_DATE = "Thu, 01 Jan 1970 00:00:00 GMT"


class NotModified(Exception):
    """The upstream answered 304 to a conditional request: nothing new."""


class FetchError(BackendError):
    """An upstream could not be fetched; the message names the URL and is written for users.

    :attr:`status` is the HTTP status of the answer when the upstream answered
    with an error status (:meth:`CheckHttp.fetch <anitrack_core.check.http.CheckHttp.fetch>`),
    None when no answer came (connection refused, timeout, too large...).
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class BlockedAddressError(FetchError):
    """The SSRF guard refused a URL or a redirect hop (loopback, private, metadata... address)."""


def default_user_agent(base_url: str) -> str:
    """``anitrack/<version> (+<base_url>)``."""
    version = core_version() or "unknown"
    return f"anitrack/{version} (+{base_url})"


@dataclass(frozen=True)
class FetchPolicy:
    """What every upstream request must respect."""

    user_agent: str
    #: seconds to connect, and to wait for each read of the answer
    timeout: float = 15.0
    #: seconds all the requests of one check may take together
    deadline: float = 60.0
    #: largest answer read, in bytes (after decompression)
    max_bytes: int = 10 * 1024 * 1024
    #: let upstreams be on loopback, private, link-local... addresses
    allow_private: bool = False
    max_redirects: int = 5
    #: seconds a regular expression may run over one page (:meth:`CheckHttp.find_versions`)
    regex_timeout: float = 2.0

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> FetchPolicy:
        """The policy the operator configured (:mod:`anitrack_core.config`)."""
        base_url = settings.get("base_url") or "http://localhost:5000"
        return cls(
            user_agent=settings.get("user_agent") or default_user_agent(base_url),
            timeout=float(settings.get("fetch_timeout") or 15.0),
            deadline=float(settings.get("check_deadline") or 60.0),
            max_bytes=int(settings.get("max_response_bytes") or 10 * 1024 * 1024),
            allow_private=bool(settings.get("allow_private_upstreams")),
            regex_timeout=float(settings.get("regex_timeout") or 2.0),
        )


@dataclass
class Validators:
    """The cache validators of an upstream answer, as the upstream sent them."""

    etag: str | None = None
    last_modified: str | None = None


@dataclass
class HttpResponse:
    """A complete upstream answer (the body is read and capped already)."""

    url: str
    status: int
    headers: Mapping[str, str]
    content: bytes
    reason: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.headers, CaseInsensitiveDict):
            self.headers = CaseInsensitiveDict(self.headers)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def text(self) -> str:
        """The body decoded with the charset of its Content-Type, else UTF-8 (bad bytes replaced)."""
        message = email.message.Message()
        message["content-type"] = self.headers.get("Content-Type", "")
        charset = message.get_content_charset() or "utf-8"
        try:
            return self.content.decode(charset, errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON.

        :raises FetchError: the body is not JSON.
        """
        try:
            return jsonlib.loads(self.content)
        except ValueError as exc:
            raise FetchError(f"{self.url}: the answer is not valid JSON ({exc})") from None
