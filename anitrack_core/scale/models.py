"""The tables of scaled-out checking (migration 0010)."""

from __future__ import annotations

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField

from ..db.models import BaseModel, Project


class CheckClaim(BaseModel):
    """A project handed to the workers: enqueued in the batch *token*, not yet checked.

    The scheduler writes it when it enqueues the project; the worker deletes
    it in the transaction that stores the check.  A claim past ``expires_on``
    (its task was lost with the broker or with a machine) is taken again by the
    scheduler under a new token, so the database, not the broker, knows what is
    in flight.
    """

    project = ForeignKeyField(Project, primary_key=True, on_delete="CASCADE")
    token = CharField(max_length=36, index=True)
    claimed_on = DateTimeField()
    expires_on = DateTimeField(index=True)


class RateLimitPause(BaseModel):
    """A backend paused by a rate limit until ``until`` (naive UTC), for every worker."""

    name = CharField(max_length=100, primary_key=True)
    until = DateTimeField()


class ScaleProcess(BaseModel):
    """The heartbeat of a scheduler or worker (``kind``), for /metrics and ``anitrack`` operators."""

    name = CharField(max_length=255, primary_key=True)
    kind = CharField(max_length=20)
    concurrency = IntegerField(default=0)
    #: messages waiting in the broker's queue when the scheduler last looked
    queue_depth = IntegerField(null=True)
    started_on = DateTimeField()
    seen_on = DateTimeField(index=True)
