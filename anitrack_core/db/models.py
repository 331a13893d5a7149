"""The records anitrack stores (peewee models).

Timestamps are naive UTC.  Columns ending in ``_key`` hold the case-folded
form of a name, so that case-insensitive uniqueness and lookups behave the
same on SQLite and PostgreSQL (SQLite's LIKE and lower() fold ASCII only).

The constraints the interface states are the database's job, not only
Python's: a project name is unique within a registered ecosystem (a partial
unique index; projects outside an ecosystem are unconstrained), a package name
is unique per distribution, a token is 40 characters, and deleting a project
cascades to its versions, packages and flags.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from peewee import (
    AutoField,
    BooleanField,
    CharField,
    Check,
    DatabaseProxy,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
    UUIDField,
)

#: bound to a real database by :func:`anitrack_core.db.database.open_database`
database_proxy = DatabaseProxy()


def utcnow() -> datetime:
    """The current time as a naive UTC datetime (how every timestamp is stored)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


class BaseModel(Model):
    class Meta:
        database = database_proxy
        legacy_table_names = False


class Distro(BaseModel):
    """A distribution whose packages are mapped to projects."""

    id = AutoField()
    name = CharField(max_length=200)
    name_key = CharField(max_length=200, unique=True)
    created_on = DateTimeField(default=utcnow)


class Project(BaseModel):
    """An upstream project and how to check it."""

    id = AutoField()
    name = CharField(max_length=200)
    name_key = CharField(max_length=200, index=True)
    homepage = CharField(max_length=1024)
    backend = CharField(max_length=200, default="custom")
    ecosystem_name = CharField(max_length=1024, index=True)
    ecosystem_key = CharField(max_length=1024, index=True)
    #: True when ecosystem_name is a registered ecosystem (then name_key is unique in it)
    in_ecosystem = BooleanField(default=False)
    version_url = CharField(max_length=1024, null=True)
    regex = TextField(null=True)
    version_prefix = TextField(null=True)
    version_scheme = CharField(max_length=50, null=True)
    version_pattern = CharField(max_length=200, null=True)
    pre_release_filter = TextField(null=True)
    version_filter = TextField(null=True)
    insecure = BooleanField(default=False)
    releases_only = BooleanField(default=False)
    error_counter = IntegerField(default=0, index=True)
    latest_version = CharField(max_length=200, null=True)
    latest_version_cursor = TextField(null=True)
    logs = TextField(null=True)
    check_successful = BooleanField(null=True, index=True)
    archived = BooleanField(default=False, index=True)
    created_on = DateTimeField(default=utcnow)
    updated_on = DateTimeField(default=utcnow)
    last_check = DateTimeField(null=True)
    next_check = DateTimeField(default=utcnow, index=True)
    #: validators of the last full upstream answer, for conditional requests (migration 0002)
    http_etag = TextField(null=True)
    http_last_modified = TextField(null=True)
    #: the versions as clients see them, kept ready as JSON (migration 0003; see anitrack_core.listing)
    version_listing = TextField(null=True)


# a name is unique within a registered ecosystem; projects outside one are unconstrained
Project.add_index(
    Project.index(Project.name_key, Project.ecosystem_key, unique=True, name="project_name_per_ecosystem")
    .where(Project.in_ecosystem == True)  # noqa: E712 (peewee expression)
)


class Package(BaseModel):
    """A package of a distribution, mapped to the project it packages."""

    id = AutoField()
    distro = ForeignKeyField(Distro, backref="packages", on_delete="CASCADE", on_update="CASCADE")
    project = ForeignKeyField(Project, backref="packages", on_delete="CASCADE")
    package_name = CharField(max_length=200)
    package_key = CharField(max_length=200, index=True)
    created_on = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("distro", "package_name"), True),)


class ProjectVersion(BaseModel):
    """One version of a project, as the upstream published it."""

    id = AutoField()
    project = ForeignKeyField(Project, backref="versions", on_delete="CASCADE")
    version = CharField(max_length=200)
    #: when anitrack found it (indexed by migration 0007: the feeds read the newest first)
    created_on = DateTimeField(default=utcnow, null=True, index=True)
    commit_url = CharField(max_length=1024, null=True)

    class Meta:
        indexes = ((("project", "version"), True),)


class ProjectFlag(BaseModel):
    """A user's report that something is wrong with a project."""

    id = AutoField()
    project = ForeignKeyField(Project, backref="flags", on_delete="CASCADE")
    reason = TextField()
    state = CharField(max_length=10, default="open", constraints=[Check("state IN ('open', 'closed')")])
    user = CharField(max_length=256, index=True)
    created_on = DateTimeField(default=utcnow)
    updated_on = DateTimeField(default=utcnow)


class Run(BaseModel):
    """The record of one check pass, written as the pass goes (see :mod:`anitrack_core.db.passes`)."""

    id = AutoField()
    created_on = DateTimeField(default=utcnow, unique=True)
    #: the counts of the checks saved so far (updated with each batch, in its transaction)
    total_count = IntegerField(default=0)
    success_count = IntegerField(default=0)
    error_count = IntegerField(default=0)
    ratelimit_count = IntegerField(default=0)
    #: started (running, or its process died: see passes.shown), finished, interrupted, failed (0009)
    state = CharField(max_length=12, default="finished", index=True)
    started_on = DateTimeField(null=True)
    finished_on = DateTimeField(null=True)
    #: when the pass last saved a batch: a sign of life
    updated_on = DateTimeField(null=True)
    #: why an interrupted or failed pass ended, for the operator
    cause = TextField(null=True)
    #: ``host:pid`` of the process running the pass
    owner = CharField(max_length=255, null=True)


class User(BaseModel):
    """A person, known through a third-party identity provider (no local passwords)."""

    id = UUIDField(primary_key=True, default=uuid.uuid4)
    email = CharField(max_length=256)
    email_key = CharField(max_length=256, unique=True)
    username = CharField(max_length=256, index=True)
    active = BooleanField(default=True)
    admin = BooleanField(default=False)
    created_on = DateTimeField(default=utcnow)
    #: when the user last signed in through the web (migration 0005)
    last_login = DateTimeField(null=True)


class UserIdentity(BaseModel):
    """How a user signs in: one row per identity provider account."""

    id = AutoField()
    user = ForeignKeyField(User, backref="identities", on_delete="CASCADE")
    provider = CharField(max_length=100)
    subject = CharField(max_length=256)
    email = CharField(max_length=256, null=True)
    created_on = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("provider", "subject"), True),)


class ApiToken(BaseModel):
    """An API token.  ``token`` holds a 40-character digest, never the secret itself."""

    token = CharField(max_length=40, primary_key=True, constraints=[Check("length(token) = 40")])
    #: the first characters of the secret, so a user can tell their tokens apart
    hint = CharField(max_length=8)
    user = ForeignKeyField(User, backref="tokens", on_delete="CASCADE")
    description = TextField(null=True)
    created = DateTimeField(default=utcnow)
    last_used = DateTimeField(null=True)


class WebSession(BaseModel):
    """A browser's session with the web app (migration 0005).

    The cookie holds a random secret; the database keeps only its SHA-256
    digest, so a leaked database opens no session.  A session without a user
    carries a sign-in in progress.  Deleting the row ends the session at
    once (sign-out, a ban, the user's deletion).
    """

    id = CharField(max_length=64, primary_key=True)
    user = ForeignKeyField(User, backref="sessions", null=True, on_delete="CASCADE")
    #: the synchronizer token every form of this session carries
    csrf_token = CharField(max_length=64)
    #: JSON: a sign-in in progress, messages to show on the next page
    data = TextField(default="{}")
    created_on = DateTimeField(default=utcnow)
    last_seen = DateTimeField(default=utcnow)
    expires_on = DateTimeField(index=True)


class OutboxEvent(BaseModel):
    """An event written in the same transaction as the change it announces.

    The publisher relays rows to the broker in id order and stamps
    ``published_on``; a broker outage only delays them.
    """

    id = AutoField()
    topic = CharField(max_length=255)
    body = TextField()
    project_id = IntegerField(null=True, index=True)
    created_on = DateTimeField(default=utcnow)
    published_on = DateTimeField(null=True, index=True)
    attempts = IntegerField(default=0)
    #: the AMQP message id, fixed when the event is written so that a redelivery carries the same id
    #: (migration 0004; null for rows written before it)
    message_id = CharField(max_length=36, null=True)


class ProjectChange(BaseModel):
    """One entry of a project's history: who changed what, and when (migration 0006).

    Written with every event about a project (:func:`anitrack_core.events.record`),
    in the same transaction.  ``project_id`` is no foreign key: the history of a
    deleted project stays, ending with its removal.
    """

    id = AutoField()
    project_id = IntegerField(index=True)
    project_name = CharField(max_length=200)
    topic = CharField(max_length=255)
    agent = CharField(max_length=256, null=True)
    #: JSON: what changed, as the event says it (fields and old/new values, versions, a mapping...)
    details = TextField(default="{}")
    created_on = DateTimeField(default=utcnow, index=True)


class OutboxLease(BaseModel):
    """Who relays the outbox now: one publisher at a time, whatever the number of processes.

    The holder renews ``expires_on`` while it works; another publisher takes
    over once it has passed (migration 0004).
    """

    name = CharField(max_length=50, primary_key=True)
    holder = CharField(max_length=255)
    expires_on = DateTimeField()


class Webhook(BaseModel):
    """A user's subscription to events, delivered by HTTP POST (migration 0008; anitrack_core.webhooks)."""

    id = AutoField()
    user = ForeignKeyField(User, backref="webhooks", on_delete="CASCADE")
    url = CharField(max_length=2048)
    #: the signing key, ``whsec_`` + base64 (Standard Webhooks); the relay needs it, so it is kept as is
    secret = CharField(max_length=100)
    #: JSON lists: topic suffixes (empty: all), project ids, distribution and ecosystem names (empty: any)
    topics = TextField(default="[]")
    projects = TextField(default="[]")
    distributions = TextField(default="[]")
    ecosystems = TextField(default="[]")
    description = CharField(max_length=200, null=True)
    active = BooleanField(default=True)
    #: why the relay disabled the subscription (None while it works, or when its owner disabled it)
    disabled_reason = TextField(null=True)
    #: the last outbox event the relay matched against this subscription
    last_event_id = IntegerField(default=0)
    created_on = DateTimeField(default=utcnow)


class WebhookDelivery(BaseModel):
    """One event to deliver to one subscription, and how its attempts went."""

    id = AutoField()
    webhook = ForeignKeyField(Webhook, backref="deliveries", on_delete="CASCADE")
    event_id = IntegerField()
    topic = CharField(max_length=255)
    #: ``webhook-id``: the same on every attempt, so receivers can drop repeats
    message_id = CharField(max_length=64)
    #: "pending", "delivered" or "failed"
    state = CharField(max_length=10, default="pending")
    attempts = IntegerField(default=0)
    next_attempt_on = DateTimeField(default=utcnow)
    last_status = IntegerField(null=True)
    last_error = TextField(null=True)
    last_duration_ms = IntegerField(null=True)
    created_on = DateTimeField(default=utcnow)
    finished_on = DateTimeField(null=True)

    class Meta:
        indexes = ((("webhook", "state", "id"), False), (("webhook", "event_id"), True))


ALL_MODELS = (
    Distro, Project, Package, ProjectVersion, ProjectFlag, Run, User, UserIdentity, ApiToken, OutboxEvent,
    OutboxLease, WebSession, ProjectChange, Webhook, WebhookDelivery,
)
