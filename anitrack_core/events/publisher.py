"""Relaying the outbox to the broker with kombu: in order, at least once, never in anyone's way.

A :class:`Publisher` runs in its own thread (``anitrack serve``) or in the
foreground (``anitrack events publish``).  It reads the unpublished events in
id order, publishes each with the wire format of fedora-messaging (see
docs/events.md), and stamps ``published_on`` only after the broker accepted
it: on AMQP with publisher confirms (the broker's ``basic.ack``), on a virtual
transport when the write to it returned.  When the broker is down or refuses,
it stops at the first event that failed (so nothing overtakes it), counts the
attempt on that event, and tries again after a pause that doubles up to
:data:`MAX_BACKOFF`; requests and checks only write rows and never wait for
it.  A crash between the broker's acceptance and the stamp sends that event
again: delivery is at least once, with the same ``message_id`` each time.

Only one publisher relays at a time, whatever the number of processes or
machines: it holds a lease in the database (table ``outbox_lease``) that it
renews while it works; others stand by and take over when it expires.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from kombu import Connection, Producer

from ..db.models import OutboxEvent, database_proxy, utcnow
from . import outbox, signals
from .messages import fedora_packages
from .topology import declare_exchange, routing_key

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger(__name__)

#: fedora-messaging's severity INFO, the severity of every anitya-schema class
SEVERITY_INFO = 20
SCHEMA_PACKAGE = "anitya_schema"
#: the schema names are anitya-schema's entry points: "anitya." + topic, whatever the routing key
SCHEMA_PREFIX = "anitya."

BATCH_SIZE = 200
POLL_INTERVAL = 1.0
LEASE_SECONDS = 30.0
MIN_BACKOFF = 0.5
MAX_BACKOFF = 30.0
CONNECT_TIMEOUT = 5.0
#: longest wait for the broker's confirmation of one message
CONFIRM_TIMEOUT = 15.0
#: published events are kept this long (operators' history), then deleted
RETENTION = timedelta(days=7)
PRUNE_EVERY = 3600.0


class BrokerError(Exception):
    """The broker could not be reached or did not accept an event."""


def sent_at(created_on: datetime) -> str:
    """fedora-messaging's ``sent-at``: UTC, whole seconds, ISO 8601 with ``+00:00``."""
    return created_on.replace(tzinfo=timezone.utc, microsecond=0).isoformat()


def wire_headers(topic: str, body: dict[str, Any], created_on: datetime) -> dict[str, Any]:
    """The AMQP application headers of an event, as fedora-messaging's publisher sets them.

    ``sent-at`` is when the event was written (the change happened), not when
    a late relay finally sent it.
    """
    headers: dict[str, Any] = {
        "fedora_messaging_schema": SCHEMA_PREFIX + topic,
        "fedora_messaging_schema_package": SCHEMA_PACKAGE,
        "sent-at": sent_at(created_on),
        "fedora_messaging_severity": SEVERITY_INFO,
        "priority": 0,
    }
    for package in fedora_packages(topic, body):
        headers[f"fedora_messaging_rpm_{package}"] = True
    return headers


def _transport_options(url: str) -> dict[str, Any]:
    if url.startswith(("amqp", "pyamqp")):
        return {"confirm_publish": True}
    if url.startswith(("redis", "rediss")):
        return {"socket_timeout": CONFIRM_TIMEOUT, "socket_connect_timeout": CONNECT_TIMEOUT}
    return {}


def _holder_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Publisher:
    """Relays the outbox to ``settings.broker_url``; see the module docstring."""

    def __init__(self, settings: Settings, *, batch_size: int = BATCH_SIZE, poll_interval: float = POLL_INTERVAL,
                 lease_seconds: float = LEASE_SECONDS, min_backoff: float = MIN_BACKOFF,
                 max_backoff: float = MAX_BACKOFF, retention: timedelta = RETENTION) -> None:
        self.url = settings.broker_url
        self.prefix = settings.topic_prefix
        self.exchange_name = settings.events_exchange
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.lease = timedelta(seconds=lease_seconds)
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.retention = retention
        self.holder = _holder_name()
        #: events this publisher had accepted by the broker, and its failed attempts
        self.published = 0
        self.failures = 0
        self.last_error: str | None = None
        self._connection: Connection | None = None
        self._producer: Producer | None = None
        self._lease_until = 0.0  # monotonic time until which the lease is surely ours
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._disconnect_signals: Any = None
        self._next_prune = 0.0

    # ---- in a thread -------------------------------------------------------------------------------

    def start(self) -> Publisher:
        """Relay in a daemon thread until :meth:`stop`; the event signals wake it at once."""
        self._disconnect_signals = signals.connect_all(self.wake)
        self._thread = threading.Thread(target=self.run, name="anitrack-publisher", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stopping.set()
        self._wake.set()
        if self._disconnect_signals is not None:
            self._disconnect_signals()
            self._disconnect_signals = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def wake(self, *_args: Any, **_kwargs: Any) -> None:
        """A signal receiver: there is something new in the outbox."""
        self._wake.set()

    def run(self) -> None:
        """Relay until stopped: after each wake-up or every *poll_interval* seconds, with backoff on failure."""
        backoff = 0.0
        try:
            while not self._stopping.is_set():
                self._wake.clear()
                try:
                    with database_proxy.connection_context():
                        sent = self.relay()
                        self._maybe_prune()
                except Exception as exc:  # broker or database: the events wait in the outbox
                    backoff = min(self.max_backoff, backoff * 2 if backoff else self.min_backoff)
                    self.failures += 1
                    if self.last_error is None:  # once per outage; a database problem with its traceback
                        log.warning("events wait in the outbox: %s (retrying, at most every %g s)", exc,
                                    self.max_backoff, exc_info=not isinstance(exc, BrokerError))
                    else:
                        log.debug("publisher still failing: %s", exc)
                    self.last_error = str(exc) or type(exc).__name__
                    self._stopping.wait(backoff)
                    continue
                if self.last_error is not None:
                    log.warning("events flow again; relayed %d waiting event(s)", sent)
                    self.last_error = None
                backoff = 0.0
                if self.holds_lease:
                    self._wake.wait(self.poll_interval)
                else:  # another publisher relays: try for the lease now and then, not at every change
                    self._stopping.wait(self.lease.total_seconds() / 3)
        finally:
            self.close()

    def close(self) -> None:
        """Close the broker connection and give the lease up (another publisher may take over at once)."""
        self._close()
        if self._lease_until:
            self._lease_until = 0.0
            try:
                with database_proxy.connection_context():
                    outbox.release_lease(self.holder)
            except Exception:  # the lease expires by itself
                log.debug("could not release the publisher lease", exc_info=True)

    @property
    def holds_lease(self) -> bool:
        return time.monotonic() < self._lease_until

    # ---- one relay pass ----------------------------------------------------------------------------

    def relay(self) -> int:
        """Publish every waiting event, in id order, while holding the lease; returns how many were sent.

        :raises BrokerError: the broker could not be reached or refused an
            event; the events before it are stamped, it and the later ones wait.
        """
        sent = 0
        while not self._stopping.is_set():
            if not self._hold_lease():
                return sent
            rows = outbox.unpublished(self.batch_size)
            if not rows:
                return sent
            sent += self._publish_rows(rows)
            if len(rows) < self.batch_size:
                return sent
        return sent

    def _publish_rows(self, rows: list[OutboxEvent]) -> int:
        """Publish *rows* in order, stamping the accepted ones; returns how many were accepted."""
        done = 0
        unstamped: list[int] = []
        for row in rows:
            if self._stopping.is_set():
                break
            try:
                self._publish(self._ensure_producer(), row)
            except Exception as exc:  # whatever the transport raises: the broker did not take this event
                self._stamp(unstamped)
                outbox.count_attempt(row.id)
                self._close()
                raise BrokerError(f"cannot publish event {row.id} ({row.topic}) to {self._redacted()}: "
                                  f"{type(exc).__name__}: {exc}") from exc
            done += 1
            unstamped.append(row.id)
            if time.monotonic() >= self._lease_until - self.lease.total_seconds() / 2:
                self._stamp(unstamped)  # what was sent is stamped before the lease is renewed
                if not self._hold_lease():
                    break
        self._stamp(unstamped)
        return done

    def _stamp(self, ids: list[int]) -> None:
        outbox.mark_published(ids)
        self.published += len(ids)
        ids.clear()

    def _publish(self, producer: Producer, row: OutboxEvent) -> None:
        body = json.loads(row.body)
        producer.publish(
            row.body.encode("utf-8"),
            exchange=self.exchange_name,
            routing_key=routing_key(self.prefix, row.topic),
            content_type="application/json",
            content_encoding="utf-8",  # bytes would otherwise go out as "binary", which consumers cannot decode
            headers=wire_headers(row.topic, body, row.created_on),
            message_id=row.message_id or str(uuid.uuid5(uuid.NAMESPACE_URL, f"anitrack-event:{row.id}")),
            delivery_mode=2,
            priority=None,  # the AMQP priority stays unset, as fedora-messaging leaves it
            retry=False,  # the relay loop retries, in order
            confirm_timeout=CONFIRM_TIMEOUT,
        )

    # ---- helpers -----------------------------------------------------------------------------------

    def _hold_lease(self) -> bool:
        if time.monotonic() < self._lease_until - self.lease.total_seconds() / 2:
            return True
        started = time.monotonic()
        if outbox.take_lease(self.holder, self.lease):
            self._lease_until = started + self.lease.total_seconds()
            return True
        self._lease_until = 0.0
        return False

    def _ensure_producer(self) -> Producer:
        if self._producer is None:
            connection = Connection(self.url, connect_timeout=CONNECT_TIMEOUT,
                                    transport_options=_transport_options(self.url))
            try:
                connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=CONNECT_TIMEOUT)
                channel = connection.channel()
                declare_exchange(channel, self.exchange_name)
            except Exception:
                connection.release()
                raise
            self._connection = connection
            self._producer = Producer(channel, auto_declare=False)
        return self._producer

    def _close(self) -> None:
        connection, self._connection, self._producer = self._connection, None, None
        if connection is not None:
            try:
                connection.release()
            except Exception:  # a dead connection may fail to close
                log.debug("closing the broker connection failed", exc_info=True)

    def _maybe_prune(self) -> None:
        if self.retention and time.monotonic() >= self._next_prune and self._lease_until > time.monotonic():
            self._next_prune = time.monotonic() + PRUNE_EVERY
            removed = outbox.prune(utcnow() - self.retention)
            if removed:
                log.info("deleted %d event(s) published more than %s ago", removed, self.retention)

    def _redacted(self) -> str:
        from ..db.database import redact

        return redact(self.url)
