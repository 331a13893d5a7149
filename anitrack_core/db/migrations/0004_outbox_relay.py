"""What the outbox publisher needs: stable message ids, a fast backlog query, one relay at a time.

``outbox_event.message_id`` is the AMQP message id of the event, chosen when
the event is written, so that a redelivery (at least once) carries the same
id and consumers can recognise it.  The partial index serves the publisher's
"unpublished rows in id order" and the backlog count without reading the
published history.  ``outbox_lease`` holds the single row that says which
publisher relays the outbox now.
"""

from peewee import CharField, DateTimeField, Model


def _lease(db):
    class OutboxLease(Model):
        name = CharField(max_length=50, primary_key=True)
        holder = CharField(max_length=255)
        expires_on = DateTimeField()

        class Meta:
            database = db
            legacy_table_names = False

    return OutboxLease


def up(migrator, db):
    migrator.migrate(migrator.add_column("outbox_event", "message_id", CharField(max_length=36, null=True)))
    db.execute_sql("CREATE INDEX outbox_event_unpublished ON outbox_event (id) WHERE published_on IS NULL")
    db.create_tables([_lease(db)])


def down(migrator, db):
    db.drop_tables([_lease(db)])
    db.execute_sql("DROP INDEX outbox_event_unpublished")
    migrator.migrate(migrator.drop_column("outbox_event", "message_id"))
