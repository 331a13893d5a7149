"""Webhook subscriptions and their deliveries (anitrack_core.webhooks)."""

from peewee import (AutoField, BooleanField, CharField, DateTimeField, ForeignKeyField, IntegerField, Model,
                    TextField, UUIDField)


def _models(db):
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class User(Base):  # only what the foreign key needs
        id = UUIDField(primary_key=True)

    class Webhook(Base):
        id = AutoField()
        user = ForeignKeyField(User, backref="webhooks", on_delete="CASCADE")
        url = CharField(max_length=2048)
        secret = CharField(max_length=100)
        topics = TextField(default="[]")
        projects = TextField(default="[]")
        distributions = TextField(default="[]")
        ecosystems = TextField(default="[]")
        description = CharField(max_length=200, null=True)
        active = BooleanField(default=True)
        disabled_reason = TextField(null=True)
        last_event_id = IntegerField(default=0)
        created_on = DateTimeField()

    class WebhookDelivery(Base):
        id = AutoField()
        webhook = ForeignKeyField(Webhook, backref="deliveries", on_delete="CASCADE")
        event_id = IntegerField()
        topic = CharField(max_length=255)
        message_id = CharField(max_length=64)
        state = CharField(max_length=10, default="pending")
        attempts = IntegerField(default=0)
        next_attempt_on = DateTimeField()
        last_status = IntegerField(null=True)
        last_error = TextField(null=True)
        last_duration_ms = IntegerField(null=True)
        created_on = DateTimeField()
        finished_on = DateTimeField(null=True)

        class Meta:
            indexes = ((("webhook", "state", "id"), False), (("webhook", "event_id"), True))

    return [Webhook, WebhookDelivery]


def up(migrator, db):
    db.create_tables(_models(db))


def down(migrator, db):
    db.drop_tables(list(reversed(_models(db))))
