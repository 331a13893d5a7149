"""Scaled-out checking (anitrack_core.scale): claims of projects in flight, shared rate-limit pauses,
and the heartbeats of schedulers and workers."""

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, Model, AutoField


def _models(db):
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Project(Base):  # only what the foreign key needs
        id = AutoField()

    class CheckClaim(Base):
        project = ForeignKeyField(Project, primary_key=True, on_delete="CASCADE")
        token = CharField(max_length=36, index=True)
        claimed_on = DateTimeField()
        expires_on = DateTimeField(index=True)

    class RateLimitPause(Base):
        name = CharField(max_length=100, primary_key=True)
        until = DateTimeField()

    class ScaleProcess(Base):
        name = CharField(max_length=255, primary_key=True)
        kind = CharField(max_length=20)
        concurrency = IntegerField(default=0)
        queue_depth = IntegerField(null=True)
        started_on = DateTimeField()
        seen_on = DateTimeField(index=True)

    return [CheckClaim, RateLimitPause, ScaleProcess]


def up(migrator, db):
    db.create_tables(_models(db))


def down(migrator, db):
    db.drop_tables(list(reversed(_models(db))))
