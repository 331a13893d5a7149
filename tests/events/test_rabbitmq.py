"""anitrack's events on a real RabbitMQ, read by fedora-messaging's own consumer code.

The scenario runs every action anitrack can perform (create a project over
the HTTP API, map packages, checks finding new versions against a loopback
upstream, a distribution added, an edit, a deletion) with the routing keys of
the existing service (``ANITRACK_TOPIC_PREFIX=org.release-monitoring.prod.anitya``),
relays the outbox with publisher confirms, and consumes with pika +
``fedora_messaging.message.get_message`` (what ``fedora-messaging consume``
does per delivery): each message must come out as the right anitya-schema
class, validated, with the wire properties of fedora-messaging's publisher.
"""

from __future__ import annotations

import json
import uuid
import warnings
from datetime import datetime

import pytest

from anitrack_core.check.runner import Checker
from anitrack_core.db import distros, projects
from anitrack_core.db.models import Project
from anitrack_core.events.publisher import Publisher

from .brokers import bound_queue, drain, fedora_messages, pika_channel
from .conftest import PAGE_1, PAGE_2, TOKEN_OWNER, create, map_to, outbox, schema_class

PROD = "org.release-monitoring.prod.anitya"

#: the-new-hotness binds these exact keys (anitya-behaviour / event-wire-format §3)
HOTNESS_KEYS = [f"{PROD}.project.version.update", f"{PROD}.project.map.new"]


@pytest.fixture
def rabbit_runtime(api, anitrack_rabbitmq, monkeypatch):
    monkeypatch.setitem(api.runtime.settings._values, "broker_url", anitrack_rabbitmq.url)
    monkeypatch.setitem(api.runtime.settings._values, "topic_prefix", PROD)
    return api.runtime


def run_scenario(api, fake_upstream) -> int:
    runtime = api.runtime
    with runtime.db.connection_context():
        distros.add_distro("Fedora")
    pid = create(api, fake_upstream, page=PAGE_1)
    map_to(api, "foo", "Fedora", "python-foo")
    with runtime.db.connection_context():
        assert Checker(runtime).run_pass(everything=True).ok == 1
        distros.add_distro("Debian", agent="admin@example.org")
    map_to(api, "foo", "Debian", "foo")
    fake_upstream.route("/dl/", PAGE_2)
    answer = api.post("/api/v2/versions/", json={"id": pid, "dry_run": False, "version_scheme": "RPM"})
    assert answer.status_code == 200 and answer.json()["found_versions"], answer.text
    with runtime.db.connection_context():
        projects.delete_project(Project.get_by_id(pid), agent="admin@example.org")
    return pid


def test_fedora_messaging_consumer_reads_every_event_of_the_scenario(rabbit_runtime, api, anitrack_rabbitmq,
                                                                      fake_upstream):
    connection, channel = pika_channel(anitrack_rabbitmq.url)
    everything, hotness = f"test-all-{uuid.uuid4().hex[:8]}", f"test-hotness-{uuid.uuid4().hex[:8]}"
    try:
        bound_queue(channel, everything, "amq.topic", [f"{PROD}.#"])
        bound_queue(channel, hotness, "amq.topic", HOTNESS_KEYS)
        run_scenario(api, fake_upstream)
        rows = outbox(rabbit_runtime)
        with rabbit_runtime.db.connection_context():
            publisher = Publisher(rabbit_runtime.settings)
            assert publisher.relay() == len(rows) == 11
            publisher.close()
        deliveries = drain(channel, everything, expect=len(rows))
        hotness_deliveries = drain(channel, hotness, expect=3)
        channel.queue_delete(everything)
        channel.queue_delete(hotness)
    finally:
        connection.close()

    assert [json.loads(body) for _, _, body in deliveries] == [row["body"] for row in rows], "all, in order"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        messages = fedora_messages(deliveries)
    topics = [row["topic"] for row in rows]
    assert topics == ["distro.add", "project.add", "project.map.new", "project.version.update",
                      "project.version.update.v2", "distro.add", "project.map.new", "project.edit",
                      "project.version.update", "project.version.update.v2", "project.remove"]
    for message, row, (method, properties, body) in zip(messages, rows, deliveries):
        assert type(message) is schema_class(row["topic"]), (row["topic"], type(message))
        assert message.topic == method.routing_key == f"{PROD}.{row['topic']}"
        assert message.id == properties.message_id == row["message_id"]
        assert message.body == row["body"] and message.severity == 20 and message.priority == 0
        assert message.topic.endswith("anitya." + row["topic"]), "the-new-hotness dispatches on this suffix"
        assert message.agent_name == row["body"]["message"]["agent"]
        # the properties and headers fedora-messaging's own publisher sets (event-wire-format §1)
        assert properties.content_type == "application/json" and properties.content_encoding == "utf-8"
        assert properties.delivery_mode == 2 and properties.priority is None
        assert method.exchange == "amq.topic"
        assert body == json.dumps(row["body"]).encode("utf-8")
        headers = properties.headers
        rpm = {key for key in headers if key.startswith("fedora_messaging_rpm_")}
        assert set(headers) - rpm == {"fedora_messaging_schema", "fedora_messaging_schema_package", "sent-at",
                                      "fedora_messaging_severity", "priority"}
        assert headers["fedora_messaging_schema"] == "anitya." + row["topic"]
        assert headers["fedora_messaging_schema_package"] == "anitya_schema"
        assert headers["fedora_messaging_severity"] == 20 and headers["priority"] == 0
        sent = datetime.fromisoformat(headers["sent-at"].replace("Z", "+00:00"))
        assert sent.utcoffset().total_seconds() == 0 and sent.microsecond == 0
        assert rpm == {f"fedora_messaging_rpm_{name}" for name in message.packages}

    by_topic = {}
    for message, row in zip(messages, rows):
        by_topic.setdefault(row["topic"], []).append(message)
    assert set(by_topic) == {"distro.add", "project.add", "project.map.new", "project.version.update",
                             "project.version.update.v2", "project.edit", "project.remove"}
    first_v2, second_v2 = by_topic["project.version.update.v2"]
    assert first_v2.packages == ["python-foo"] and first_v2.old_version == ""
    assert first_v2.upstream_versions == sorted(first_v2.upstream_versions, key=first_v2.versions[::-1].index)
    assert second_v2.old_version == first_v2.versions[0]
    assert {m["package_name"] for m in second_v2.mappings} == {"python-foo", "foo"}
    assert [m.packages for m in by_topic["project.map.new"]] == [["python-foo"], []]
    assert by_topic["project.add"][0].agent_name == TOKEN_OWNER
    assert by_topic["project.remove"][0].project_name == "foo"
    assert by_topic["distro.add"][1].body["distro"] == {"name": "Debian"}

    # a consumer bound like the-new-hotness gets exactly its events
    assert [method.routing_key for method, _, _ in hotness_deliveries] == [
        f"{PROD}.project.map.new", f"{PROD}.project.version.update", f"{PROD}.project.map.new",
        f"{PROD}.project.version.update"]
    with rabbit_runtime.db.connection_context():
        assert all(row["published_on"] is not None for row in outbox(rabbit_runtime))


def test_a_custom_exchange_is_declared_and_used(api, anitrack_rabbitmq, monkeypatch):
    exchange = f"anitrack-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setitem(api.runtime.settings._values, "broker_url", anitrack_rabbitmq.url)
    monkeypatch.setitem(api.runtime.settings._values, "events_exchange", exchange)
    connection, channel = pika_channel(anitrack_rabbitmq.url)
    try:
        with api.runtime.db.connection_context():
            distros.add_distro("Fedora")
            publisher = Publisher(api.runtime.settings)
            publisher.relay()  # declares the exchange (nothing is bound yet: the broker drops the event)
            channel.queue_declare("custom-exchange-test", exclusive=True)
            channel.queue_bind("custom-exchange-test", exchange, routing_key="org.anitrack.#")
            distros.add_distro("Debian")
            assert publisher.relay() == 1
            assert publisher._producer.channel._confirm_selected, "publisher confirms are on"
            publisher.close()
        (method, properties, body), = drain(channel, "custom-exchange-test", expect=1)
        assert method.exchange == exchange and method.routing_key == "org.anitrack.distro.add"
        assert fedora_messages([(method, properties, body)])[0].body["distro"] == {"name": "Debian"}
        channel.exchange_delete(exchange)
    finally:
        connection.close()


CALLBACK = '''
import json, os

def on_event(message):
    with open(os.environ["EVENTS_SEEN"], "a") as seen:
        seen.write(json.dumps({"class": type(message).__name__, "topic": message.topic, "id": message.id,
                               "packages": getattr(message, "packages", None), "agent": message.agent_name}) + "\\n")
'''


def test_fedora_messaging_consume_command_receives_the_events(api, anitrack_rabbitmq, fake_upstream, tmp_path,
                                                               monkeypatch):
    """``fedora-messaging consume`` itself (its Twisted consumer), configured as docs/events.md shows."""
    import os
    import subprocess
    import sys
    import time

    monkeypatch.setitem(api.runtime.settings._values, "broker_url", anitrack_rabbitmq.url)
    queue = f"test-fm-consume-{uuid.uuid4().hex[:8]}"
    (tmp_path / "anitrack_test_consumer.py").write_text(CALLBACK)
    (tmp_path / "consumer.toml").write_text(f'''
amqp_url = "amqp://guest:guest@127.0.0.1:{anitrack_rabbitmq.port}/%2F"
callback = "anitrack_test_consumer:on_event"

[queues.{queue}]
durable = true
auto_delete = true
exclusive = false
arguments = {{}}

[[bindings]]
queue = "{queue}"
exchange = "amq.topic"
routing_keys = ["org.anitrack.project.version.update.v2", "org.anitrack.project.map.new", "org.anitrack.project.add"]
''')
    seen = tmp_path / "seen.jsonl"
    env = {**os.environ, "EVENTS_SEEN": str(seen), "PYTHONPATH": str(tmp_path)}
    consumer = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "fedora-messaging"), "--conf",
                                 str(tmp_path / "consumer.toml"), "consume"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
    try:
        connection, channel = pika_channel(anitrack_rabbitmq.url)
        deadline = time.monotonic() + 30
        while True:  # wait for the consumer to declare and bind its queue
            try:
                channel.queue_declare(queue, passive=True)
                break
            except Exception:
                assert time.monotonic() < deadline and consumer.poll() is None, consumer.stderr.read().decode()
                connection, channel = pika_channel(anitrack_rabbitmq.url)
                time.sleep(0.2)
        connection.close()
        time.sleep(0.5)  # the bindings follow the queue
        with api.runtime.db.connection_context():
            distros.add_distro("Fedora")
        create(api, fake_upstream)
        map_to(api, "foo", "Fedora", "python-foo")
        with api.runtime.db.connection_context():
            Checker(api.runtime).run_pass(everything=True)
            publisher = Publisher(api.runtime.settings)
            assert publisher.relay() == 5
            publisher.close()
        deadline = time.monotonic() + 30
        while (not seen.exists() or len(seen.read_text().splitlines()) < 3) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        consumer.terminate()
        consumer.wait(timeout=15)
    got = [json.loads(line) for line in seen.read_text().splitlines()]
    rows = {row["message_id"]: row for row in outbox(api.runtime)}
    assert [(m["class"], m["topic"]) for m in got] == [
        ("ProjectCreated", "org.anitrack.project.add"), ("ProjectMapCreated", "org.anitrack.project.map.new"),
        ("ProjectVersionUpdatedV2", "org.anitrack.project.version.update.v2")]
    assert all(m["id"] in rows for m in got)
    assert got[1]["packages"] == got[2]["packages"] == ["python-foo"]
    assert [m["agent"] for m in got] == [TOKEN_OWNER, TOKEN_OWNER, "anitrack"]
