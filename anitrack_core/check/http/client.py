"""The HTTP client of the check engine: :class:`HttpClient` per process, :class:`CheckHttp` per check.

One :class:`HttpClient` per process holds the pooled keep-alive connections;
each check of one project gets a :class:`CheckHttp` from :meth:`HttpClient.for_check`,
which is exactly what a backend receives as ``http`` (documented for plugin
authors in ``docs/plugin_hooks.md``, "The ``http`` object").  Every request it makes

* waits for a slot of its host and is refused while its backend is paused by
  a rate limit (:mod:`~anitrack_core.check.http.limits`), on every redirect hop;
* sends the identifying User-Agent of the :class:`FetchPolicy`;
* can be conditional (``If-None-Match`` / ``If-Modified-Since``); a 304 raises
  :exc:`NotModified`;
* has (connect, read) timeouts and shares the check's total deadline, which
  also bounds an upstream that drips its answer byte by byte;
* reads at most ``max_bytes`` of answer (after decompression);
* checks certificates unless the project is marked insecure;
* follows redirects itself, re-checking the scheme and the address of every
  hop, and drops credentials when a hop changes host;
* connects only to addresses the SSRF guard allows
  (:mod:`~anitrack_core.check.http.guard`, :mod:`~anitrack_core.check.http.transport`).

Nothing here reads environment variables or global settings: the
:class:`FetchPolicy` carries them (:meth:`FetchPolicy.from_settings`).
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import format_datetime
from http.cookiejar import CookiePolicy
from typing import Any
from urllib.parse import urljoin

import requests
from requests.structures import CaseInsensitiveDict

from ..regex import Pattern, versions_from_text
from . import guard as address_guard
from . import transport
from .limits import HostSlots, RateLimitPauses, rate_limit_error
from .types import (
    EPOCH_HTTP_DATE,
    BlockedAddressError,
    FetchError,
    FetchPolicy,
    HttpResponse,
    NotModified,
    Validators,
)

ALLOW_PRIVATE_HINT = "an operator can allow private upstreams with ANITRACK_ALLOW_PRIVATE_UPSTREAMS=1"
_REDIRECTS = (301, 302, 303, 307, 308)
_CREDENTIAL_HEADERS = ("Authorization", "Proxy-Authorization", "Cookie")
_CHUNK = 64 * 1024


def guarded_session(guard: address_guard.AddressGuard, *, verify: bool | str = True, user_agent: str | None = None,
                    adapter: requests.adapters.BaseAdapter | None = None) -> requests.Session:
    """A requests session that connects only where *guard* allows, with no proxy, no environment
    settings and no cookies (the check engine's sessions; the webhook relay's)."""
    session = requests.Session()
    session.trust_env = False  # no proxies, .netrc or CA bundle from the environment
    session.verify = verify
    if user_agent:
        session.headers["User-Agent"] = user_agent
    session.cookies.set_policy(NoCookies())  # requests of different projects or receivers share nothing
    if adapter is None:
        adapter = transport.GuardedAdapter(guard, insecure=verify is False)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class HttpClient:
    """The process-wide HTTP client: pooled keep-alive connections, thread-safe.

    :param policy: limits and identity of every request.
    :param resolver: ``resolver(host, port) -> [address, ...]``; default: the system's.
    :param address_check: ``check(ip_address) -> reason or None``; default:
        :func:`~anitrack_core.check.http.guard.refusal_reason`.  Ignored when
        ``policy.allow_private`` is set.
    :param ca_certs: a PEM bundle of the certificate authorities to trust
        (default: requests' bundle).
    :param adapter: a :class:`requests.adapters.BaseAdapter` to send every
        ``http://`` and ``https://`` request through instead of the guarded
        one (tests: :class:`anitrack_core.testing_replay.ReplayAdapter` plays
        recorded answers; no name resolution, no network).  Everything else
        of the client (User-Agent, conditional headers, deadline, size cap,
        redirects) works the same over it.
    """

    def __init__(
        self,
        policy: FetchPolicy,
        *,
        resolver: address_guard.Resolver | None = None,
        address_check: address_guard.AddressCheck | None = None,
        ca_certs: str | None = None,
        adapter: requests.adapters.BaseAdapter | None = None,
    ) -> None:
        self.policy = policy
        guard = address_guard.AddressGuard(
            allow_private=policy.allow_private,
            resolver=resolver or address_guard.system_resolver,
            check=address_check or address_guard.refusal_reason,
        )
        self._sessions = {
            False: self._session(guard, verify=ca_certs or True, adapter=adapter),
            True: self._session(guard, verify=False, adapter=adapter),
        }

    def _session(
        self, guard: address_guard.AddressGuard, *, verify: bool | str,
        adapter: requests.adapters.BaseAdapter | None,
    ) -> requests.Session:
        return guarded_session(guard, verify=verify, user_agent=self.policy.user_agent, adapter=adapter)

    def for_check(
        self,
        *,
        insecure: bool = False,
        validators: Validators | None = None,
        fallback_since: datetime | None = None,
        slots: HostSlots | None = None,
        pauses: RateLimitPauses | None = None,
        pause_key: str | None = None,
    ) -> CheckHttp:
        """The HTTP access of one check of one project; its deadline starts now.

        :param slots: the per-host limits every request (every redirect hop) waits for.
        :param pauses: with *pause_key*: no request is sent while *pause_key*
            (a backend's name) is paused there; it fails with the pause's
            :exc:`~anitrack_core.errors.RateLimitError` instead.
        """
        return CheckHttp(self, insecure=insecure, validators=validators, fallback_since=fallback_since,
                         slots=slots, pauses=pauses, pause_key=pause_key)

    def close(self) -> None:
        """Close every pooled connection."""
        for session in self._sessions.values():
            session.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(eq=False)
class CheckHttp:
    """What a backend receives as ``http``: the requests of one check, under one deadline and the limits."""

    client: HttpClient
    insecure: bool = False
    validators: Validators | None = None
    fallback_since: datetime | None = None
    #: per-host slots every request (every redirect hop) waits for; None: no limit
    slots: HostSlots | None = None
    #: rate-limit pauses; while ``pause_key`` is paused there, no request is sent
    pauses: RateLimitPauses | None = None
    pause_key: str | None = None
    #: set by a conditional 2xx answer, from its ETag / Last-Modified, for the engine to store
    new_validators: Validators | None = None
    requests_made: int = 0
    _deadline_at: float = field(init=False)

    def __post_init__(self) -> None:
        self._deadline_at = time.monotonic() + self.client.policy.deadline

    @property
    def policy(self) -> FetchPolicy:
        """The limits and identity of every request (:class:`FetchPolicy`)."""
        return self.client.policy

    def get(self, url: str, *, headers: dict[str, str] | None = None, conditional: bool = False) -> HttpResponse:
        """GET *url*, following redirects; any status is returned as it is.

        :raises NotModified: *conditional* and the upstream answered 304.
        :raises RateLimitError: the backend is paused by a rate limit (the request was not sent).
        :raises FetchError: the upstream could not be reached or read.
        """
        return self._request("GET", url, headers, conditional=conditional)

    def post(
        self, url: str, *, json: Any = None, data: Any = None, headers: dict[str, str] | None = None
    ) -> HttpResponse:
        """POST a JSON (*json*) or form/bytes (*data*) body to *url*; any status is returned as it is."""
        return self._request("POST", url, headers, body={"json": json, "data": data})

    def fetch(
        self, url: str, *, headers: dict[str, str] | None = None, conditional: bool = False,
        not_found: str | None = None, detail: Callable[[HttpResponse], str] | None = None,
    ) -> HttpResponse:
        """GET *url* and return the answer when it is a success (2xx).

        A rate limit (see :meth:`raise_for_rate_limit`) raises
        :exc:`RateLimitError`; any other non-2xx status raises a
        :exc:`FetchError` whose ``status`` is the status and whose message is
        ``<url>: server responded with status <status> "<reason>"``, followed
        by `` (<explanation>)`` when there is one: *not_found* for a 404
        (``"no such package on PyPI"``), else what ``detail(response)``
        returns (an API's own error message, "" for none).

        :raises NotModified: *conditional* and the upstream answered 304.
        """
        response = self.get(url, headers=headers, conditional=conditional)
        self.raise_for_status(response, url, not_found=not_found, detail=detail)
        return response

    def raise_for_status(
        self, response: HttpResponse, url: str, *, not_found: str | None = None,
        detail: Callable[[HttpResponse], str] | None = None,
    ) -> None:
        """What :meth:`fetch` does with an answer, for one got otherwise (a :meth:`post`).

        :param url: the URL asked for (the message also names where it was redirected).
        :raises RateLimitError: see :meth:`raise_for_rate_limit`.
        :raises FetchError: a non-2xx answer, in the message format of :meth:`fetch`.
        """
        self.raise_for_rate_limit(response)
        if not response.ok:
            explanation = not_found if response.status == 404 and not_found else ""
            if not explanation and detail is not None:
                explanation = detail(response)
            raise status_error(response, url, explanation)

    def get_json(
        self, url: str, *, headers: dict[str, str] | None = None, conditional: bool = False,
        not_found: str | None = None, detail: Callable[[HttpResponse], str] | None = None,
    ) -> Any:
        """:meth:`fetch` *url* (asking for JSON) and parse its answer.

        :raises FetchError: as :meth:`fetch`, or the answer is not JSON.
        """
        response = self.fetch(url, headers={"Accept": "application/json", **(headers or {})},
                              conditional=conditional, not_found=not_found, detail=detail)
        return response.json()

    def find_versions(self, text: str, pattern: str | Pattern, *, url: str, project_name: str) -> list[str]:
        """The versions *pattern* finds in *text* (the page at *url*), under the operator's ``regex_timeout``.

        See :func:`anitrack_core.check.regex.versions_from_text`: every match
        is a version (several groups are joined with ``.``), duplicates are
        dropped, the page's order is kept.

        :raises BackendError: invalid pattern, no version found, a version with
            whitespace, or a search longer than ``regex_timeout`` seconds.
        """
        return versions_from_text(text, pattern, project_name=project_name, url=url,
                                  timeout=self.client.policy.regex_timeout)

    def raise_for_rate_limit(self, response: HttpResponse) -> None:
        """Raise :exc:`RateLimitError` on a 429, or a 403 with ``X-RateLimit-Remaining: 0``.

        Its reset time comes from ``X-RateLimit-Reset``, else ``Retry-After``,
        else one hour; at most 24 hours.
        """
        remaining = (response.headers.get("X-RateLimit-Remaining") or "").strip()
        if response.status == 429 or (response.status == 403 and remaining == "0"):
            raise rate_limit_error(response.headers, datetime.now(timezone.utc))

    def _request(
        self, method: str, url: str, extra: dict[str, str] | None, *, conditional: bool = False,
        body: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if not isinstance(url, str) or not url.strip():
            raise FetchError(f"no URL to fetch (got {url!r})")
        headers: CaseInsensitiveDict[str] = CaseInsensitiveDict(extra or {})
        if conditional:
            headers.update(self._conditional_headers())
        headers["User-Agent"] = self.client.policy.user_agent
        origin = url
        for _hop in range(self.client.policy.max_redirects + 1):
            response = self._exchange(method, url, headers, body or {}, origin)
            target = response.headers.get("Location") if response.status in _REDIRECTS else None
            if not target:
                break
            new_url = urljoin(url, _location(target))
            if response.status == 303 or (response.status in (301, 302) and method == "POST"):
                method, body = "GET", None
                headers.pop("Content-Type", None)
            if _origin(new_url) != _origin(url):
                for name in _CREDENTIAL_HEADERS:
                    headers.pop(name, None)
            url = new_url
        else:
            limit = self.client.policy.max_redirects
            raise FetchError(f"{_where(url, origin)}: too many redirects (more than {limit})")
        if conditional and response.status == 304:
            raise NotModified(response.url)
        if conditional and response.ok:
            self.new_validators = Validators(response.headers.get("ETag"), response.headers.get("Last-Modified"))
        return response

    def _conditional_headers(self) -> dict[str, str]:
        known = self.validators or Validators()
        headers = {"If-None-Match": known.etag} if known.etag else {}
        if known.last_modified:
            headers["If-Modified-Since"] = known.last_modified
        elif self.fallback_since is not None:
            headers["If-Modified-Since"] = http_date(self.fallback_since)
        else:
            headers["If-Modified-Since"] = EPOCH_HTTP_DATE
        return headers

    def _exchange(
        self, method: str, url: str, headers: Mapping[str, str], body: dict[str, Any], origin: str
    ) -> HttpResponse:
        """Send one request (no redirect followed) and read its whole answer."""
        where = _where(url, origin)
        try:
            address_guard.check_url(url)
        except address_guard.UnsupportedURL as exc:
            raise FetchError(f"{where}: {exc}") from None
        with self._limited(url):  # given back before the next hop waits for the slot of its host
            return self._send(method, url, headers, body, where)

    def _send(
        self, method: str, url: str, headers: Mapping[str, str], body: dict[str, Any], where: str
    ) -> HttpResponse:
        left = self._deadline_at - time.monotonic()
        if left <= 0:
            raise self._deadline_error(where)
        timeout = min(self.client.policy.timeout, left)
        session = self.client._sessions[self.insecure]
        self.requests_made += 1
        try:
            with transport.deadline(self._deadline_at):
                answer = session.get_adapter(url).send(
                    _prepared(session, method, url, headers, body), stream=True, timeout=(timeout, timeout),
                    verify=session.verify, cert=None, proxies={},
                )
                try:
                    content = self._read(answer, where)
                finally:
                    answer.close()
        except address_guard.AddressRefused as exc:
            named = _spelled(exc.host, exc.address)
            raise BlockedAddressError(
                f"{where}: refused to connect to {exc.address}{named}: {exc.reason}; only public addresses "
                f"can be checked ({ALLOW_PRIVATE_HINT})"
            ) from None
        except address_guard.UnresolvableHost as exc:
            raise FetchError(f"{where}: the host name {exc.host!r} cannot be resolved ({exc.reason})") from None
        except requests.RequestException as exc:
            raise self._transport_error(exc, where, timeout) from None
        return HttpResponse(url, answer.status_code, CaseInsensitiveDict(answer.headers), content, answer.reason or "")

    @contextmanager
    def _limited(self, url: str) -> Iterator[None]:
        """A slot of *url*'s host, then no pause of this check's backend, for one request."""
        with self.slots.slot(url) if self.slots is not None else nullcontext():
            if self.pauses is not None and self.pause_key is not None:
                self.pauses.raise_if_paused(self.pause_key)
            yield

    def _read(self, answer: requests.Response, where: str) -> bytes:
        cap = self.client.policy.max_bytes
        declared = (answer.headers.get("Content-Length") or "").strip()
        if declared.isdigit() and int(declared) > cap:
            raise FetchError(
                f"{where}: the answer is {int(declared)} bytes long, more than the {cap} bytes allowed "
                "(max_response_bytes)"
            )
        body = bytearray()
        for chunk in answer.iter_content(_CHUNK):
            body += chunk
            if len(body) > cap:
                raise FetchError(f"{where}: the answer is longer than the {cap} bytes allowed (max_response_bytes)")
        return bytes(body)

    def _deadline_error(self, where: str) -> FetchError:
        return FetchError(
            f"{where}: the check took longer than its deadline of {self.client.policy.deadline:g} s "
            "(check_deadline); the upstream is too slow"
        )

    def _transport_error(self, exc: requests.RequestException, where: str, timeout: float) -> FetchError:
        if time.monotonic() >= self._deadline_at - 0.05:
            return self._deadline_error(where)
        detail = describe(exc)
        if isinstance(exc, requests.exceptions.SSLError):
            hint = "" if self.insecure else "; if the upstream cannot fix its certificate, mark the project insecure"
            return FetchError(f"{where}: the TLS connection failed ({detail}){hint}")
        if isinstance(exc, requests.exceptions.ConnectTimeout):
            return FetchError(f"{where}: could not connect within {timeout:g} s")
        if isinstance(exc, requests.exceptions.ReadTimeout) or "timed out" in detail.lower():
            return FetchError(f"{where}: the upstream did not answer within {timeout:g} s")
        if isinstance(exc, (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError)):
            return FetchError(f"{where}: the answer was broken off or malformed ({detail})")
        if isinstance(exc, requests.exceptions.ConnectionError):
            return FetchError(f"{where}: the connection failed ({detail})")
        return FetchError(f"{where}: the request failed ({detail})")


def _prepared(session: requests.Session, method: str, url: str, headers: Mapping[str, str],
              body: dict[str, Any]) -> requests.PreparedRequest:
    """The request to send, prepared without ``Session.request``: what it adds here (cookies, hooks,
    environment settings, redirects) the engine's sessions turn off, and its merging costs more
    than the rest of a request to a near upstream.  The session's own headers come first."""
    prepared = requests.PreparedRequest()
    prepared.prepare_method(method)
    prepared.prepare_url(url, None)
    merged = CaseInsensitiveDict(session.headers)
    merged.update(headers)
    prepared.prepare_headers(merged)
    prepared.prepare_body(body.get("data"), None, body.get("json"))
    prepared.prepare_auth(None, url)  # credentials written in the URL, as requests sends them
    return prepared


def status_error(response: HttpResponse, url: str, explanation: str = "") -> FetchError:
    """The :exc:`FetchError` of an answer with an error status, in the one format backends use.

    ``<url>: server responded with status <status> "<reason>"`` (the URL says
    where it was redirected), then `` (<explanation>)`` if any.
    """
    where = _where(response.url, url)
    message = f'{where}: server responded with status {response.status} "{response.reason}"'
    return FetchError(message + (f" ({explanation})" if explanation else ""), status=response.status)


def _spelled(host: str, address: str) -> str:
    """How *host* relates to the refused *address*, for the message (empty when they are the same)."""
    if host.strip("[]") == address:
        return ""
    return f" ({host} spells it)" if address_guard.parse_address(host) else f" (the address of {host})"


def _location(value: str) -> str:
    """A Location header as sent: http.client decodes headers as Latin-1, servers mostly send UTF-8."""
    try:
        return value.strip().encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value.strip()


def _where(url: str, origin: str) -> str:
    return url if url == origin else f"{url} (redirected from {origin})"


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of *url*: a redirect to another origin drops the credentials."""
    try:
        parts = address_guard.check_url(url)
    except address_guard.UnsupportedURL:
        return ("", url, None)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def http_date(when: datetime) -> str:
    """*when* as an HTTP-date (``Thu, 01 Jan 1970 00:00:00 GMT``); a naive value is taken as UTC."""
    aware = when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)
    return format_datetime(aware, usegmt=True)


def describe(exc: BaseException) -> str:
    """A short, user-readable cause of a requests/urllib3 failure ("Connection refused")."""
    root = _root_cause(exc)
    if isinstance(root, ssl.SSLCertVerificationError):
        return f"certificate verification failed: {root.verify_message}"
    if isinstance(root, OSError) and root.strerror:
        return root.strerror
    return str(root) or type(root).__name__


def _root_cause(exc: BaseException) -> BaseException:
    seen: set[int] = set()
    current = exc
    while id(current) not in seen:
        seen.add(id(current))
        nested: Any = getattr(current, "reason", None)
        if not isinstance(nested, BaseException):
            nested = next((arg for arg in current.args if isinstance(arg, BaseException)), None)
        if nested is None:
            nested = current.__cause__ or current.__context__
        if nested is None:
            break
        current = nested
    return current


class NoCookies(CookiePolicy):
    """Accept and return no cookie: the sessions are shared by the checks of every project."""

    netscape = True
    rfc2965 = False
    hide_cookie2 = False

    def set_ok(self, cookie: Any, request: Any) -> bool:
        return False

    def return_ok(self, cookie: Any, request: Any) -> bool:
        return False

    def domain_return_ok(self, domain: str, request: Any) -> bool:
        return False

    def path_return_ok(self, path: str, request: Any) -> bool:
        return False
