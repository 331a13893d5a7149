"""Small helpers of :mod:`anitrack_core.check.http`: dates, rate-limit headers, error texts, cookies."""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime, parsedate_to_datetime
from http.cookiejar import CookiePolicy
from typing import Any

#: when an upstream gives no usable reset time
DEFAULT_RATE_LIMIT_PAUSE = timedelta(hours=1)
#: the longest pause an upstream can ask for (a hostile upstream could ask for years)
MAX_RATE_LIMIT_PAUSE = timedelta(hours=24)


def http_date(when: datetime) -> str:
    """*when* as an HTTP-date (``Thu, 01 Jan 1970 00:00:00 GMT``); a naive value is taken as UTC."""
    aware = when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)
    return format_datetime(aware, usegmt=True)


def rate_limit_reset(headers: Mapping[str, str], now: datetime) -> datetime:
    """When a rate limit resets (aware UTC), from the headers of the answer that reported it.

    ``X-RateLimit-Reset`` (epoch seconds) first, then ``Retry-After`` (seconds or
    an HTTP-date), else one hour from *now*.  The result lies between *now* and
    *now* + :data:`MAX_RATE_LIMIT_PAUSE`.
    """
    reset = _epoch(headers.get("X-RateLimit-Reset")) or _retry_after(headers.get("Retry-After"), now)
    if reset is None:
        reset = now + DEFAULT_RATE_LIMIT_PAUSE
    return min(max(reset, now), now + MAX_RATE_LIMIT_PAUSE)


def _epoch(value: str | None) -> datetime | None:
    try:
        return datetime.fromtimestamp(float((value or "").strip()), timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None


def _retry_after(value: str | None, now: datetime) -> datetime | None:
    text = (value or "").strip()
    if not text:
        return None
    try:
        if text.isdigit():
            return now + timedelta(seconds=min(int(text), 10**9))
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, OverflowError):
        return None
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


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
