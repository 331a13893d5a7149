"""How hard a check may press on an upstream: per-host slots and rate-limit pauses.

Both are applied by :class:`~anitrack_core.check.http.CheckHttp` to every
request it sends, redirect hops included: each hop waits for a slot of *its*
host (the slot of the previous hop is given back first), and a hop is not
sent while the backend it serves is paused by a rate limit.

* :class:`HostSlots`: at most ``check_per_host`` requests in flight to any one
  host name (setting ``check_per_host``; one :class:`HostSlots` per
  :class:`~anitrack_core.check.runner.Checker`, so per process).
* :class:`RateLimitPauses`: when a backend whose rate limit is shared by all
  its projects (``Backend.shared_rate_limit``) hits the limit, every request
  of that backend fails with the same :exc:`~anitrack_core.errors.RateLimitError`
  until the reset time the upstream gave (:func:`rate_limit_reset`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from ...errors import RateLimitError

#: when an upstream gives no usable reset time
DEFAULT_RATE_LIMIT_PAUSE = timedelta(hours=1)
#: the longest pause an upstream can ask for (a hostile upstream could ask for years)
MAX_RATE_LIMIT_PAUSE = timedelta(hours=24)


class HostSlots:
    """At most *per_host* requests in flight to any one upstream host (thread-safe)."""

    def __init__(self, per_host: int) -> None:
        self.per_host = max(1, per_host)
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    @contextmanager
    def slot(self, url: str) -> Iterator[None]:
        """Hold one slot of the host of *url* for the duration of the block."""
        host = (urlsplit(url).hostname or "").lower()
        with self._lock:
            semaphore = self._slots.setdefault(host, threading.BoundedSemaphore(self.per_host))
        with semaphore:
            yield


class RateLimitPauses:
    """Which backends are paused by a rate limit, and until when (thread-safe; keys compared case-insensitively)."""

    def __init__(self) -> None:
        self._until: dict[str, datetime] = {}
        self._lock = threading.Lock()

    def paused_until(self, key: str) -> datetime | None:
        """The reset time of *key*'s pause (aware UTC), or None when it is not paused."""
        key = key.casefold()
        with self._lock:
            reset = self._until.get(key)
            if reset is not None and reset <= datetime.now(timezone.utc):
                del self._until[key]
                return None
            return reset

    def pause(self, key: str, reset: datetime) -> None:
        """Pause *key* until *reset* (naive: UTC); an earlier pause already set wins."""
        reset = reset if reset.tzinfo else reset.replace(tzinfo=timezone.utc)
        key = key.casefold()
        with self._lock:
            current = self._until.get(key)
            self._until[key] = min(current, reset) if current else reset

    def raise_if_paused(self, key: str) -> None:
        """:raises RateLimitError: *key* is paused."""
        reset = self.paused_until(key)
        if reset is not None:
            raise RateLimitError(paused_message(reset), reset)


def paused_message(reset: datetime) -> str:
    """The message of a rate limit that resets at *reset*."""
    return f'Rate limit was reached. Will be reset in "{reset.isoformat(timespec="seconds")}".'


def rate_limit_error(headers: Mapping[str, str], now: datetime | None = None) -> RateLimitError:
    """The :exc:`RateLimitError` of an answer that reports a rate limit, reset time from its *headers*."""
    reset = rate_limit_reset(headers, now or datetime.now(timezone.utc))
    return RateLimitError(paused_message(reset), reset)


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
