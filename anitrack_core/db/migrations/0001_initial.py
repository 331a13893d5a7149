"""The first schema: every record of the interface.

The models are a frozen copy, deliberately independent of
``anitrack_core.db.models``: later changes to the models come with later
migrations, and this file keeps describing version 1.
"""

import uuid
from datetime import datetime, timezone

from peewee import (AutoField, BooleanField, CharField, Check, DateTimeField, ForeignKeyField,
                    IntegerField, Model, TextField, UUIDField)


def _now():
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _models(db):
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Distro(Base):
        id = AutoField()
        name = CharField(max_length=200)
        name_key = CharField(max_length=200, unique=True)
        created_on = DateTimeField(default=_now)

    class Project(Base):
        id = AutoField()
        name = CharField(max_length=200)
        name_key = CharField(max_length=200, index=True)
        homepage = CharField(max_length=1024)
        backend = CharField(max_length=200, default="custom")
        ecosystem_name = CharField(max_length=1024, index=True)
        ecosystem_key = CharField(max_length=1024, index=True)
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
        created_on = DateTimeField(default=_now)
        updated_on = DateTimeField(default=_now)
        last_check = DateTimeField(null=True)
        next_check = DateTimeField(default=_now, index=True)

    Project.add_index(
        Project.index(Project.name_key, Project.ecosystem_key, unique=True, name="project_name_per_ecosystem")
        .where(Project.in_ecosystem == True))  # noqa: E712

    class Package(Base):
        id = AutoField()
        distro = ForeignKeyField(Distro, on_delete="CASCADE", on_update="CASCADE")
        project = ForeignKeyField(Project, on_delete="CASCADE")
        package_name = CharField(max_length=200)
        package_key = CharField(max_length=200, index=True)
        created_on = DateTimeField(default=_now)

        class Meta:
            indexes = ((("distro", "package_name"), True),)

    class ProjectVersion(Base):
        id = AutoField()
        project = ForeignKeyField(Project, on_delete="CASCADE")
        version = CharField(max_length=200)
        created_on = DateTimeField(default=_now, null=True)
        commit_url = CharField(max_length=1024, null=True)

        class Meta:
            indexes = ((("project", "version"), True),)

    class ProjectFlag(Base):
        id = AutoField()
        project = ForeignKeyField(Project, on_delete="CASCADE")
        reason = TextField()
        state = CharField(max_length=10, default="open", constraints=[Check("state IN ('open', 'closed')")])
        user = CharField(max_length=256, index=True)
        created_on = DateTimeField(default=_now)
        updated_on = DateTimeField(default=_now)

    class Run(Base):
        id = AutoField()
        created_on = DateTimeField(default=_now, unique=True)
        total_count = IntegerField(default=0)
        success_count = IntegerField(default=0)
        error_count = IntegerField(default=0)
        ratelimit_count = IntegerField(default=0)

    class User(Base):
        id = UUIDField(primary_key=True, default=uuid.uuid4)
        email = CharField(max_length=256)
        email_key = CharField(max_length=256, unique=True)
        username = CharField(max_length=256, index=True)
        active = BooleanField(default=True)
        admin = BooleanField(default=False)
        created_on = DateTimeField(default=_now)

    class UserIdentity(Base):
        id = AutoField()
        user = ForeignKeyField(User, on_delete="CASCADE")
        provider = CharField(max_length=100)
        subject = CharField(max_length=256)
        email = CharField(max_length=256, null=True)
        created_on = DateTimeField(default=_now)

        class Meta:
            indexes = ((("provider", "subject"), True),)

    class ApiToken(Base):
        token = CharField(max_length=40, primary_key=True, constraints=[Check("length(token) = 40")])
        hint = CharField(max_length=8)
        user = ForeignKeyField(User, on_delete="CASCADE")
        description = TextField(null=True)
        created = DateTimeField(default=_now)
        last_used = DateTimeField(null=True)

    class OutboxEvent(Base):
        id = AutoField()
        topic = CharField(max_length=255)
        body = TextField()
        project_id = IntegerField(null=True, index=True)
        created_on = DateTimeField(default=_now)
        published_on = DateTimeField(null=True, index=True)
        attempts = IntegerField(default=0)

    return [Distro, Project, Package, ProjectVersion, ProjectFlag, Run, User, UserIdentity, ApiToken,
            OutboxEvent]


def up(migrator, db):
    db.create_tables(_models(db))


def down(migrator, db):
    db.drop_tables(_models(db))
