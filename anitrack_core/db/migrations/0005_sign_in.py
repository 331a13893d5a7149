"""Sign-in through identity providers: browser sessions, and when a user last signed in.

``web_session`` rows are keyed by the SHA-256 digest of the cookie's secret;
deleting a row ends that session at once (a ban deletes all of a user's).
"""

from peewee import CharField, DateTimeField, ForeignKeyField, Model, TextField, UUIDField


def _models(db):
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class User(Base):  # only what the foreign key needs
        id = UUIDField(primary_key=True)

    class WebSession(Base):
        id = CharField(max_length=64, primary_key=True)
        user = ForeignKeyField(User, backref="sessions", null=True, on_delete="CASCADE")
        csrf_token = CharField(max_length=64)
        data = TextField(default="{}")
        created_on = DateTimeField()
        last_seen = DateTimeField()
        expires_on = DateTimeField(index=True)

    return WebSession


def up(migrator, db):
    migrator.migrate(migrator.add_column("user", "last_login", DateTimeField(null=True)))
    db.create_tables([_models(db)])


def down(migrator, db):
    db.drop_tables([_models(db)])
    migrator.migrate(migrator.drop_column("user", "last_login"))
