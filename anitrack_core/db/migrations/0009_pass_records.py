"""The record of a check pass is written as the pass goes: its state (started, finished, interrupted,
failed), when it started and finished, its last sign of life, the process running it and why it ended.
Passes recorded before are finished ones, started when they were created."""

from peewee import CharField, DateTimeField, TextField


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("run", "state", CharField(max_length=12, default="finished")),
        migrator.add_column("run", "started_on", DateTimeField(null=True)),
        migrator.add_column("run", "finished_on", DateTimeField(null=True)),
        migrator.add_column("run", "updated_on", DateTimeField(null=True)),
        migrator.add_column("run", "cause", TextField(null=True)),
        migrator.add_column("run", "owner", CharField(max_length=255, null=True)),
        migrator.add_index("run", ("state",), False),
    )
    db.execute_sql("UPDATE run SET started_on = created_on, updated_on = created_on")


def down(migrator, db):
    migrator.migrate(
        migrator.drop_index("run", "run_state"),
        *(migrator.drop_column("run", column)
          for column in ("state", "started_on", "finished_on", "updated_on", "cause", "owner")),
    )
