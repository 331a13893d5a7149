"""Delivering events to webhook subscriptions, from the outbox.

Each pass of the relay

1. **matches**: reads the outbox events written after each active
   subscription's cursor, keeps those its topics and filters select, writes a
   delivery row for each and moves the cursor, in one transaction;
2. **delivers**: POSTs the oldest waiting delivery of every subscription
   that is due, several subscriptions at once (``webhook_concurrency``), never
   two deliveries of one subscription at once, so each receives its events in
   order.

A delivery's body is the bus event's JSON body, unchanged; the topic is in the
``Anitrack-Topic`` header; ``webhook-id``, ``webhook-timestamp`` and
``webhook-signature`` are the Standard Webhooks headers, signed by the
``standardwebhooks`` library.  The ``webhook-id`` is the same on every
attempt, so a receiver can drop a repeat (delivery is at least once: a relay
killed between sending and recording sends again).  A 2xx answer delivers; a
410 disables the subscription; anything else (another status, a redirect,
which is never followed, a timeout, a refused address) is retried after
30 s, 1 min, 2 min... up to 6 h apart, :data:`MAX_ATTEMPTS` times (about a
day), then the delivery fails and the subscription is disabled with the
reason.  Connections go through the check engine's address guard
(``webhook_allow_private`` lifts it).  One relay runs at a time (a lease in
the database), whatever the number of processes.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import peewee
import requests
from standardwebhooks import Webhook as Signer

from ..check.http import guard as netguard
from ..check.http import transport
from ..check.http.client import describe, guarded_session
from ..db.models import Distro, OutboxEvent, Package, Webhook, WebhookDelivery, database_proxy, utcnow
from ..events import outbox, signals
from ..events.topology import routing_key

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger(__name__)

LEASE = "webhooks"
LEASE_SECONDS = 30.0
POLL_INTERVAL = 5.0
BATCH_SIZE = 200
FIRST_RETRY = timedelta(seconds=30)
LONGEST_WAIT = timedelta(hours=6)
#: attempts of one delivery: 30 s, 1 min, 2 min ... 6 h apart, about a day in all
MAX_ATTEMPTS = 13
#: bytes of a receiver's answer read (and kept for the log)
ANSWER_BYTES = 2048


def retry_delay(attempts: int) -> timedelta:
    """How long to wait after the *attempts*-th failed attempt."""
    return min(LONGEST_WAIT, FIRST_RETRY * (2 ** max(0, attempts - 1)))


def _list(text: str) -> list[Any]:
    return json.loads(text or "[]")


class _Filters:
    """What one subscription selects."""

    def __init__(self, webhook: Webhook) -> None:
        self.topics = set(_list(webhook.topics))
        self.projects = set(_list(webhook.projects))
        self.distributions = {name.casefold() for name in _list(webhook.distributions)}
        self.ecosystems = {name.casefold() for name in _list(webhook.ecosystems)}

    def select(self, event: OutboxEvent, body: dict[str, Any], mapped: set[str]) -> bool:
        if self.topics and event.topic not in self.topics:
            return False
        if self.projects and event.project_id not in self.projects:
            return False
        if self.ecosystems and str((body.get("project") or {}).get("ecosystem") or "").casefold() not in self.ecosystems:
            return False
        if self.distributions:
            # an event about a distribution (a mapping, a distro change) is of that distribution only;
            # any other event about a project is of every distribution the project is packaged in
            named = (body.get("distro") or {}).get("name")
            if not self.distributions & ({str(named).casefold()} if named else mapped):
                return False
        return True


class WebhookRelay:
    """Matches outbox events to subscriptions and delivers them; see the module docstring.

    :param resolver: how webhook hosts are resolved (default: the system's).
    :param allow_private: overrides the ``webhook_allow_private`` setting.
    """

    def __init__(self, settings: Settings, *, poll_interval: float = POLL_INTERVAL, batch_size: int = BATCH_SIZE,
                 resolver: netguard.Resolver | None = None, allow_private: bool | None = None) -> None:
        self.prefix = settings["topic_prefix"]
        self.timeout = settings["webhook_timeout"]
        self.user_agent = settings["user_agent"] or f"anitrack webhooks (+{settings.base_url})"
        self.poll_interval = poll_interval
        self.batch_size = batch_size
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        if allow_private is None:
            allow_private = settings["webhook_allow_private"]
        self.session = guarded_session(netguard.AddressGuard(allow_private=allow_private,
                                                             resolver=resolver or netguard.system_resolver))
        self._pool = ThreadPoolExecutor(settings["webhook_concurrency"], thread_name_prefix="anitrack-webhook")
        self._in_flight: set[int] = set()
        self._lock = threading.Lock()
        self._lease_until = 0.0
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._disconnect: Any = None

    # ---- running -----------------------------------------------------------------------------------

    def start(self) -> WebhookRelay:
        """Relay in a daemon thread until :meth:`stop`; new events wake it at once."""
        self._disconnect = signals.connect_all(self.wake)
        self._thread = threading.Thread(target=self.run, name="anitrack-webhooks", daemon=True)
        self._thread.start()
        return self

    def wake(self, *_args: Any, **_kwargs: Any) -> None:
        self._wake.set()

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stopping.set()
        self._wake.set()
        if self._disconnect is not None:
            self._disconnect()
            self._disconnect = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._pool.shutdown(wait=True, cancel_futures=True)
        self.session.close()

    def run(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                with database_proxy.connection_context():
                    self.step()
            except Exception:  # the database is away: try again later, the events wait in the outbox
                log.warning("webhook relay pass failed; retrying", exc_info=True)
                self._stopping.wait(self.poll_interval)
                continue
            self._wake.wait(self.poll_interval)
        try:
            with database_proxy.connection_context():
                outbox.release_lease(self.holder, LEASE)
        except Exception:
            log.debug("could not release the webhook lease", exc_info=True)

    def step(self) -> int:
        """One pass: match new events, start the due deliveries; returns how many deliveries started."""
        if not self._hold_lease():
            return 0
        self.match()
        return self.dispatch()

    def drain(self, timeout: float = 60.0) -> None:
        """Pass until nothing is due or in flight (``anitrack webhooks relay --once``, tests)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with database_proxy.connection_context():
                started = self.step()
            with self._lock:
                busy = bool(self._in_flight)
            if not started and not busy:
                return
            time.sleep(0.05)

    # ---- matching ----------------------------------------------------------------------------------

    def match(self) -> int:
        """Write the deliveries of the events after each active subscription's cursor; returns how many."""
        newest = OutboxEvent.select(peewee.fn.MAX(OutboxEvent.id)).scalar() or 0
        written = 0
        # read whole before writing: a statement still open would make SQLite refuse the writes below
        behind = list(Webhook.select().where((Webhook.active == True) & (Webhook.last_event_id < newest)))  # noqa: E712
        for webhook in behind:
            filters = _Filters(webhook)
            cursor = webhook.last_event_id
            while cursor < newest:
                rows = list(OutboxEvent.select().where(OutboxEvent.id > cursor).order_by(OutboxEvent.id)
                            .limit(self.batch_size))
                if not rows:
                    break
                mapped = _mapped_distros({row.project_id for row in rows if row.project_id is not None})
                chosen = [row for row in rows
                          if filters.select(row, json.loads(row.body), mapped.get(row.project_id, set()))]
                with database_proxy.atomic():
                    if chosen:
                        WebhookDelivery.insert_many([
                            {"webhook": webhook.id, "event_id": row.id, "topic": row.topic,
                             "message_id": f"msg_{row.message_id or row.id}", "next_attempt_on": utcnow(),
                             "created_on": utcnow()} for row in chosen]).on_conflict_ignore().execute()
                    cursor = rows[-1].id
                    Webhook.update(last_event_id=cursor).where(Webhook.id == webhook.id).execute()
                written += len(chosen)
        return written

    # ---- delivering --------------------------------------------------------------------------------

    def dispatch(self) -> int:
        """Start the due head delivery of every subscription that has none in flight."""
        heads = (WebhookDelivery.select(peewee.fn.MIN(WebhookDelivery.id))
                 .join(Webhook).where((WebhookDelivery.state == "pending") & (Webhook.active == True))  # noqa: E712
                 .group_by(WebhookDelivery.webhook))
        now = utcnow()
        started = 0
        for delivery in list(WebhookDelivery.select().where(WebhookDelivery.id.in_(heads))):
            if delivery.next_attempt_on > now:
                continue
            with self._lock:
                if delivery.webhook_id in self._in_flight:
                    continue
                self._in_flight.add(delivery.webhook_id)
            self._pool.submit(self._deliver, delivery.id, delivery.webhook_id)
            started += 1
        return started

    def _deliver(self, delivery_id: int, webhook_id: int) -> None:
        try:
            with database_proxy.connection_context():
                delivery = WebhookDelivery.get_or_none(WebhookDelivery.id == delivery_id)
                webhook = Webhook.get_or_none(Webhook.id == webhook_id)
                event = OutboxEvent.get_or_none(OutboxEvent.id == delivery.event_id) if delivery else None
                if delivery is None or webhook is None or delivery.state != "pending":
                    return
                if event is None:  # pruned while the subscription was disabled: nothing left to send
                    WebhookDelivery.update(state="failed", finished_on=utcnow(),
                                           last_error="the event is no longer in the outbox").where(
                        WebhookDelivery.id == delivery.id).execute()
                    return
                status, error, took = self._send(webhook, delivery, event)
                self._finish(delivery, webhook, status, error, took)
        except Exception:
            log.exception("webhook delivery %s failed unexpectedly", delivery_id)
        finally:
            with self._lock:
                self._in_flight.discard(webhook_id)
            self._wake.set()

    def _send(self, webhook: Webhook, delivery: WebhookDelivery,
              event: OutboxEvent) -> tuple[int | None, str | None, int]:
        """POST the event; returns (status or None, what went wrong or None, milliseconds)."""
        now = datetime.now(timezone.utc)
        headers = {
            "Content-Type": "application/json",
            "User-Agent": self.user_agent,
            "Anitrack-Topic": routing_key(self.prefix, event.topic),
            "webhook-id": delivery.message_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Signer(webhook.secret).sign(delivery.message_id, now, event.body),
        }
        started = time.monotonic()
        try:
            with transport.deadline(started + self.timeout):
                answer = self.session.post(webhook.url, data=event.body.encode("utf-8"), headers=headers,
                                           timeout=(self.timeout, self.timeout), allow_redirects=False, stream=True)
                try:
                    answer.raw.read(ANSWER_BYTES)
                finally:
                    answer.close()
        except netguard.AddressRefused as exc:
            return None, f"refused to connect to {exc.address}: {exc.reason}", _ms(started)
        except netguard.UnresolvableHost as exc:
            return None, f"the host name {exc.host!r} cannot be resolved ({exc.reason})", _ms(started)
        except requests.RequestException as exc:
            if time.monotonic() - started >= self.timeout - 0.05:
                return None, f"no answer within {self.timeout:g} s", _ms(started)
            return None, describe(exc), _ms(started)
        status = answer.status_code
        if 200 <= status < 300:
            return status, None, _ms(started)
        if 300 <= status < 400:
            return status, f"the receiver answered {status} (redirects are not followed)", _ms(started)
        return status, f"the receiver answered {status} {answer.reason or ''}".strip(), _ms(started)

    def _finish(self, delivery: WebhookDelivery, webhook: Webhook, status: int | None, error: str | None,
                took: int) -> None:
        now = utcnow()
        attempts = delivery.attempts + 1
        changes: dict[Any, Any] = {WebhookDelivery.attempts: attempts, WebhookDelivery.last_status: status,
                                   WebhookDelivery.last_error: error, WebhookDelivery.last_duration_ms: took}
        disable = None
        if error is None:
            changes.update({WebhookDelivery.state: "delivered", WebhookDelivery.finished_on: now})
        elif status == 410 or attempts >= MAX_ATTEMPTS:
            changes.update({WebhookDelivery.state: "failed", WebhookDelivery.finished_on: now})
            disable = (f"Disabled on {now:%Y-%m-%d %H:%M} UTC: the receiver answered 410 Gone." if status == 410
                       else f"Disabled on {now:%Y-%m-%d %H:%M} UTC after {attempts} failed attempts to deliver "
                            f"event {delivery.event_id} over about a day; the last: {error}.")
        else:
            changes[WebhookDelivery.next_attempt_on] = now + retry_delay(attempts)
        with database_proxy.atomic():
            WebhookDelivery.update(changes).where(WebhookDelivery.id == delivery.id).execute()
            if disable:
                Webhook.update(active=False, disabled_reason=disable).where(Webhook.id == webhook.id).execute()
        if disable:
            log.warning("webhook %s (%s) disabled: %s", webhook.id, webhook.url, disable)

    def _hold_lease(self) -> bool:
        if time.monotonic() < self._lease_until - LEASE_SECONDS / 2:
            return True
        started = time.monotonic()
        if outbox.take_lease(self.holder, timedelta(seconds=LEASE_SECONDS), LEASE):
            self._lease_until = started + LEASE_SECONDS
            return True
        self._lease_until = 0.0
        return False


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _mapped_distros(project_ids: set[int]) -> dict[int, set[str]]:
    """The distributions each project is packaged in (lower case), in one query."""
    found: dict[int, set[str]] = {}
    if project_ids:
        rows = (Package.select(Package.project, Distro.name).join(Distro)
                .where(Package.project.in_(list(project_ids))).tuples())
        for project_id, name in rows:
            found.setdefault(project_id, set()).add(name.casefold())
    return found
