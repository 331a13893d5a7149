"""A project's history: one row per event about it (who changed what, and when).

No foreign key to ``project``: the history of a deleted project is kept.
"""

from peewee import AutoField, CharField, DateTimeField, IntegerField, Model, TextField


def _models(db):
    class ProjectChange(Model):
        id = AutoField()
        project_id = IntegerField(index=True)
        project_name = CharField(max_length=200)
        topic = CharField(max_length=255)
        agent = CharField(max_length=256, null=True)
        details = TextField(default="{}")
        created_on = DateTimeField(index=True)

        class Meta:
            database = db
            legacy_table_names = False

    return ProjectChange


def up(migrator, db):
    db.create_tables([_models(db)])


def down(migrator, db):
    db.drop_tables([_models(db)])
