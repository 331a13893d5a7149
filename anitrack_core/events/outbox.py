"""The transactional outbox: events are rows written with the change they announce.

:func:`record` is what store functions call, inside the transaction of their
change.  The row commits or rolls back with the change, so an event exists
exactly when its change does (a dry run, which rolls back, leaves none), and
a broker outage cannot lose it: the publisher (:mod:`.publisher`) relays the
rows to the broker in id order and stamps ``published_on`` once the broker
has accepted each one.

Order per project: on SQLite writers are serialised, so ids follow commit
order.  On PostgreSQL ids are drawn when rows are inserted, and transactions
may commit in another order; :func:`record` therefore first locks the
project's row (``FOR NO KEY UPDATE``, which the change usually holds already),
so two transactions writing events of one project take their ids in the order
they commit, and the publisher, reading committed rows in id order, never
sends a project's later event before its earlier one.

After the commit the event's blinker signal is sent (see :mod:`.signals`).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import peewee

from ..db import bulk, history
from ..db.models import OutboxEvent, OutboxLease, Project, Webhook, WebhookDelivery, database_proxy, utcnow
from . import signals

log = logging.getLogger(__name__)


def encode(body: dict[str, Any]) -> str:
    """The body as stored and sent: JSON with fedora-messaging's own separators, ASCII only."""
    return json.dumps(body, ensure_ascii=True)


def record(topic: str, body: dict[str, Any], *, project_id: int | None = None) -> int:
    """Write the event *topic* (``project.add``...) with *body* to the outbox; returns its id.

    Call it inside the transaction of the change (outside one, the row is
    committed on its own at once).  The signal of *topic* is sent after the
    outermost transaction commits, and not at all if it rolls back.  An event
    about a project (*project_id*) also becomes an entry of its history
    (:mod:`anitrack_core.db.history`), in the same transaction.
    """
    return record_many([(topic, body, project_id)])[0]


def record_many(events: list[tuple[str, dict[str, Any], int | None]]) -> list[int]:
    """:func:`record` for each (topic, body, project id) of *events*, in a few statements; returns their ids."""
    for topic, _body, _project in events:
        signals.signal_for(topic)  # refuse unknown topics before writing anything
    if not events:
        return []
    db = database_proxy
    if db.in_transaction():
        ids = _insert(events)
    else:
        with db.atomic():
            ids = _insert(events)
    _signal_after_commit(ids)
    return ids


_ROW = (OutboxEvent.topic, OutboxEvent.body, OutboxEvent.project_id, OutboxEvent.message_id, OutboxEvent.created_on)


def _insert(events: list[tuple[str, dict[str, Any], int | None]]) -> list[int]:
    about_projects = [(topic, body, project) for topic, body, project in events if project is not None]
    if about_projects:
        if isinstance(database_proxy.obj, peewee.PostgresqlDatabase):
            projects = sorted({project for _topic, _body, project in about_projects})
            list(Project.select(Project.id).where(Project.id.in_(projects)).order_by(Project.id)
                 .for_update("FOR NO KEY UPDATE"))
        history.note_many(about_projects)
    now = utcnow()
    return bulk.insert_rows(OutboxEvent, _ROW, [(topic, encode(body), project, str(uuid.uuid4()), now)
                                                for topic, body, project in events], returning=True)


# ---- signals after commit ----------------------------------------------------------------------------

@dataclass
class _Batch:
    """The events written in one outermost transaction of one thread."""

    transaction: Any
    ids: list[int] = field(default_factory=list)


_current = threading.local()


def _signal_after_commit(event_ids: list[int]) -> None:
    db = database_proxy
    top = db.top_transaction()
    if top is None:  # already committed
        _send_signals(event_ids)
        return
    batch = getattr(_current, "batch", None)
    if batch is None or batch.transaction is not top:
        batch = _Batch(top)
        try:
            db.after_commit(lambda: _flush(batch))
        except ValueError:  # a manual-commit block has no commit hook: the publisher's polling finds the row
            return
        _current.batch = batch
    batch.ids.extend(event_ids)


def _flush(batch: _Batch) -> None:
    if getattr(_current, "batch", None) is batch:
        _current.batch = None
    _send_signals(batch.ids)


def _send_signals(ids: list[int]) -> None:
    """Send the signal of each committed event among *ids*, read back from the outbox.

    Reading back skips the events of a savepoint that was rolled back inside
    a transaction that committed.  Nothing is read when no one listens.
    """
    if not signals.listened():
        return
    try:
        rows = list(OutboxEvent.select(OutboxEvent.id, OutboxEvent.topic, OutboxEvent.body, OutboxEvent.project_id)
                    .where(OutboxEvent.id.in_(sorted(set(ids)))).order_by(OutboxEvent.id).tuples())
    except peewee.DatabaseError:
        log.warning("could not read back committed events %s to signal them", ids, exc_info=True)
        return
    for event_id, topic, body, project_id in rows:
        signals.send(topic, event_id=event_id, body=json.loads(body), project_id=project_id)


# ---- what the publisher and the operator read --------------------------------------------------------

def unpublished(limit: int) -> list[OutboxEvent]:
    """The oldest *limit* events not yet accepted by the broker, in id order."""
    return list(OutboxEvent.select().where(OutboxEvent.published_on.is_null()).order_by(OutboxEvent.id).limit(limit))


def mark_published(ids: list[int], when: datetime | None = None) -> None:
    if ids:
        (OutboxEvent.update(published_on=when or utcnow())
         .where(OutboxEvent.id.in_(ids) & OutboxEvent.published_on.is_null()).execute())


def count_attempt(event_id: int) -> None:
    OutboxEvent.update(attempts=OutboxEvent.attempts + 1).where(OutboxEvent.id == event_id).execute()


def prune(older_than: datetime) -> int:
    """Delete events published before *older_than*; returns how many.

    Events the webhook relay still needs stay: those after the cursor of an
    active subscription, and those of a delivery not yet done.
    """
    query = OutboxEvent.published_on.is_null(False) & (OutboxEvent.published_on < older_than)
    matched = Webhook.select(peewee.fn.MIN(Webhook.last_event_id)).where(Webhook.active == True).scalar()  # noqa: E712
    if matched is not None:
        query &= OutboxEvent.id <= matched
    waiting = (WebhookDelivery.select(peewee.fn.MIN(WebhookDelivery.event_id))
               .where(WebhookDelivery.state == "pending").scalar())
    if waiting is not None:
        query &= OutboxEvent.id < waiting
    return OutboxEvent.delete().where(query).execute()


@dataclass
class Backlog:
    #: events not yet accepted by the broker
    count: int
    #: the oldest of them, if any
    oldest_id: int | None
    oldest_created_on: datetime | None
    oldest_attempts: int
    #: when the last event was accepted
    last_published_on: datetime | None
    #: the publisher holding the lease, and until when (None: no publisher has run)
    publisher: str | None
    publisher_until: datetime | None

    def oldest_age(self, now: datetime | None = None) -> float | None:
        """Seconds since the oldest unpublished event was written."""
        if self.oldest_created_on is None:
            return None
        return max(0.0, ((now or utcnow()) - self.oldest_created_on).total_seconds())

    def as_dict(self, now: datetime | None = None) -> dict[str, Any]:
        now = now or utcnow()
        iso = lambda moment: moment.isoformat() + "Z" if moment else None  # noqa: E731
        return {"backlog": self.count, "oldest_unpublished_id": self.oldest_id,
                "oldest_unpublished_age_seconds": self.oldest_age(now),
                "oldest_unpublished_attempts": self.oldest_attempts,
                "last_published_on": iso(self.last_published_on),
                "publisher": self.publisher if self.publisher_until and self.publisher_until > now else None,
                "publisher_lease_until": iso(self.publisher_until)}


def backlog() -> Backlog:
    """How far behind the publisher is (three small indexed queries)."""
    count = OutboxEvent.select().where(OutboxEvent.published_on.is_null()).count()
    oldest = (OutboxEvent.select(OutboxEvent.id, OutboxEvent.created_on, OutboxEvent.attempts)
              .where(OutboxEvent.published_on.is_null()).order_by(OutboxEvent.id).first())
    last = OutboxEvent.select(peewee.fn.MAX(OutboxEvent.published_on)).scalar()
    if isinstance(last, str):  # SQLite returns the aggregate as text
        last = datetime.fromisoformat(last)
    lease = OutboxLease.get_or_none(OutboxLease.name == LEASE_NAME)
    return Backlog(count, oldest.id if oldest else None, oldest.created_on if oldest else None,
                   oldest.attempts if oldest else 0, last, lease.holder if lease else None,
                   lease.expires_on if lease else None)


# ---- one publisher at a time --------------------------------------------------------------------------

LEASE_NAME = "publisher"


def take_lease(holder: str, duration: timedelta, name: str = LEASE_NAME) -> bool:
    """Take or renew the lease *name* (the publisher's by default) for *holder*; False while another
    holder's lease runs."""
    now = utcnow()
    OutboxLease.insert(name=name, holder=holder, expires_on=now + duration).on_conflict_ignore().execute()
    taken = (OutboxLease.update(holder=holder, expires_on=now + duration)
             .where((OutboxLease.name == name)
                    & ((OutboxLease.holder == holder) | (OutboxLease.expires_on < now))).execute())
    return taken == 1


def release_lease(holder: str, name: str = LEASE_NAME) -> None:
    (OutboxLease.update(expires_on=utcnow() - timedelta(seconds=1))
     .where((OutboxLease.name == name) & (OutboxLease.holder == holder)).execute())
