"""Events through kombu's Redis transport, to a kombu consumer (fedora-messaging consumers speak AMQP only).

The publisher runs in its own process (``anitrack events publish --once``) so
that the ``amq.`` pitfall is really exercised: on a virtual transport the type
of an exchange lives in each process, and kombu skips declaring ``amq.*``
names, so a publisher that did not declare ``amq.topic`` itself would route it
as a direct exchange and the consumer's ``#`` binding would get nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys

from kombu import Connection, Exchange, Queue

from anitrack_core.db import distros

from .conftest import create, map_to, outbox, validated


def test_kombu_consumer_on_redis_receives_every_event_in_order(api, anitrack_redis, anitrack_env, fake_upstream):
    with Connection(anitrack_redis.url) as consumer:
        # what a third-party kombu consumer does (docs/events.md): declare amq.topic itself, then bind
        channel = consumer.default_channel
        channel.exchange_declare(exchange="amq.topic", type="topic", durable=True, auto_delete=False)
        queue = Queue("anitrack-test-events", Exchange("amq.topic", type="topic"), routing_key="org.anitrack.#",
                      durable=True)(channel)
        queue.declare()
        queue.purge()
        try:
            with api.runtime.db.connection_context():
                distros.add_distro("Fedora")
            create(api, fake_upstream)
            map_to(api, "foo", "Fedora", "python-foo")
            env = {**os.environ, **anitrack_env, "ANITRACK_BROKER_URL": anitrack_redis.url}
            published = subprocess.run([sys.executable, "-m", "anitrack_core.cli", "events", "publish", "--once"],
                                       env=env, capture_output=True, text=True, timeout=60)
            assert published.returncode == 0, published.stderr
            assert published.stdout.strip() == "published 3 event(s)"
            received = []
            while (message := queue.get(no_ack=True)) is not None:
                received.append(message)
        finally:
            queue.delete()
    rows = outbox(api.runtime)
    assert [m.delivery_info["routing_key"] for m in received] == [f"org.anitrack.{row['topic']}" for row in rows]
    for message, row in zip(received, rows):
        assert message.content_type == "application/json" and message.content_encoding == "utf-8"
        assert message.properties["message_id"] == row["message_id"]
        assert message.properties["delivery_mode"] == 2
        assert message.headers["fedora_messaging_schema"] == "anitya." + row["topic"]
        assert message.headers["fedora_messaging_severity"] == 20
        assert message.decode() == row["body"]
        validated(row["topic"], message.decode())
    assert received[-1].headers["fedora_messaging_rpm_python-foo"] is True
    assert all(row["published_on"] is not None for row in outbox(api.runtime))
