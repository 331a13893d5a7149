"""How hard a check may press on an upstream: per-host slots and rate-limit pauses.

Both are applied by :class:`~anitrack_core.check.http.CheckHttp` to every
request it sends, redirect hops included: each hop waits for a slot of *its*
host (the slot of the previous hop is given back first), and a hop is not
sent while the backend it serves is paused by a rate limit.

* :class:`HostSlots`: at most so many requests in flight to any one host name
  (one :class:`HostSlots` per :class:`~anitrack_core.check.runner.Checker`,
  so per process).  A host's bound is the operator's for it (setting
  ``[check.host_concurrency]``), else what the backends that ask it declare
  (``Backend.host_concurrency``: an index service such as pypi.org tolerates
  far more than a project's own web server), else ``check_per_host``.  The
  bound belongs to the host, so every backend's requests to it share it.
* :class:`RateLimitPauses`: when a backend whose rate limit is shared by all
  its projects (``Backend.shared_rate_limit``) hits the limit, every request
  of that backend fails with the same :exc:`~anitrack_core.errors.RateLimitError`
  until the reset time the upstream gave (:func:`rate_limit_reset`).
"""

from __future__ import annotations

import queue
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
    """At most :meth:`bound` requests in flight to any one upstream host (thread-safe).

    Each host has a queue of as many tokens as its bound; a request takes one,
    waiting in the C queue (no Python lock), and puts it back.  A bound that
    grows adds tokens; one that shrinks swallows tokens as they come back.

    :param per_host: the bound of a host no one names.
    :param overrides: bounds by host name (the operator's); they win over what backends :meth:`declare`.
    """

    def __init__(self, per_host: int, overrides: Mapping[str, int] | None = None) -> None:
        self.per_host = max(1, per_host)
        self._overrides = {_host_key(host): max(1, bound) for host, bound in (overrides or {}).items()}
        self._declared: dict[str, int] = {}
        self._lock = threading.Lock()
        self._hosts: dict[str, _Tokens] = {}

    def bound(self, host: str) -> int:
        """How many requests may be in flight to *host* at once."""
        host = _host_key(host)
        return self._overrides.get(host) or self._declared.get(host) or self.per_host

    def declare(self, bounds: Mapping[str, int]) -> None:
        """Take the bounds a backend declares for the hosts it asks (``Backend.host_concurrency``);
        when backends declare different bounds for one host, the smallest holds."""
        with self._lock:
            for host, bound in bounds.items():
                host = _host_key(host)
                current = self._declared.get(host)
                self._declared[host] = max(1, bound) if current is None else min(current, max(1, bound))
                if host in self._hosts:
                    self._hosts[host].resize(self.bound(host))

    @contextmanager
    def slot(self, url: str) -> Iterator[None]:
        """Hold one slot of the host of *url* for the duration of the block."""
        host = (urlsplit(url).hostname or "").lower()
        tokens = self._hosts.get(host)
        if tokens is None:
            with self._lock:
                tokens = self._hosts.get(host)
                if tokens is None:
                    tokens = self._hosts[host] = _Tokens(self.bound(host))
        tokens.take()
        try:
            yield
        finally:
            tokens.give_back()


class _Tokens:
    """The slots of one host: a queue of tokens, and how many returning tokens to swallow."""

    def __init__(self, bound: int) -> None:
        self._queue: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._issued = bound
        self._excess = 0
        self._lock = threading.Lock()  # only to resize, and to swallow a token
        for _ in range(bound):
            self._queue.put(None)

    def take(self) -> None:
        self._queue.get()

    def give_back(self) -> None:
        if self._excess:
            with self._lock:
                if self._excess:
                    self._excess -= 1
                    self._issued -= 1
                    return
        self._queue.put(None)

    def resize(self, bound: int) -> None:
        with self._lock:
            wanted = bound - (self._issued - self._excess)
            if wanted > 0:
                cancelled = min(wanted, self._excess)
                self._excess -= cancelled
                for _ in range(wanted - cancelled):
                    self._issued += 1
                    self._queue.put(None)
            elif wanted < 0:
                self._excess -= wanted


def _host_key(host: str) -> str:
    """A host name as :func:`urllib.parse.urlsplit` gives it: lower case, an IPv6 address without brackets."""
    return host.strip("[]").lower()


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
