"""A broker outage loses nothing, reorders nothing, and slows no request.

test_outage: while changes keep coming through the HTTP API and the check
engine, the real RabbitMQ is killed (SIGKILL, mid-stream) and restarted;
afterwards every event of the outbox has reached the consumer's durable queue
at least once (duplicates of a publish whose confirmation was lost are
allowed: same message id), first deliveries in id order (so in order per
project), and the requests made during the outage all answered promptly.

test_hung_broker: a broker that accepts connections and never answers (the
worst case for a synchronous publisher: every publish would wait for its
timeouts) does not slow requests or checks down; events wait in the outbox.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
import warnings

import pytest

from anitrack_core import events
from anitrack_core.check.runner import Checker
from anitrack_core.db import distros
from anitrack_core.events import messages
from anitrack_core.events.publisher import Publisher

from .brokers import bound_queue, drain, fedora_messages, pika_channel
from .conftest import PAGE_1, PAGE_2, map_to, outbox

#: a request of this test takes milliseconds; this bound only catches one that waits for the broker
PROMPT = 2.0
BURST = 1500


def fast_publisher(settings) -> Publisher:
    return Publisher(settings, poll_interval=0.2, min_backoff=0.2, max_backoff=1.0)


def timed(durations, call, *args, **kwargs):
    started = time.monotonic()
    result = call(*args, **kwargs)
    durations.append(time.monotonic() - started)
    return result


def test_outage(api, anitrack_rabbitmq, fake_upstream, monkeypatch):
    monkeypatch.setitem(api.runtime.settings._values, "broker_url", anitrack_rabbitmq.url)
    queue = f"test-outage-{uuid.uuid4().hex[:8]}"
    connection, channel = pika_channel(anitrack_rabbitmq.url)
    bound_queue(channel, queue, "amq.topic", ["org.anitrack.#"])  # durable: survives the restart
    connection.close()
    with api.runtime.db.connection_context():
        distros.add_distro("Fedora")
    publisher = fast_publisher(api.runtime.settings).start()

    before_outage, halted, in_outage, restarted = (threading.Event() for _ in range(4))
    during_outage: list[float] = []
    failures: list[str] = []

    def changes():
        try:
            for i in range(36):
                if i == 8:  # 8 rounds of changes with the broker up, then 12 with it down, then 16 more
                    before_outage.set()
                    halted.wait(60)
                elif i == 20:
                    in_outage.set()
                    restarted.wait(60)
                durations = during_outage if 8 <= i < 20 else []
                name = f"p{i}"
                fake_upstream.route(f"/dl{i}/", PAGE_1.replace("foo", name))
                answer = timed(durations, api.post, "/api/v2/projects/", json={
                    "name": name, "homepage": f"https://{name}.example/", "backend": "custom",
                    "version_url": fake_upstream.url(f"/dl{i}/")})
                assert answer.status_code == 201, answer.text
                timed(durations, map_to, api, name, "Fedora", f"python-{name}")
                if i % 3 == 0:  # a check that finds versions, with an edit: project.edit + version updates
                    answer = timed(durations, api.post, "/api/v2/versions/",
                                   json={"id": answer.json()["id"], "dry_run": False, "version_scheme": "RPM"})
                    assert answer.status_code == 200 and answer.json()["found_versions"], answer.text
        except BaseException as exc:  # reported by the main thread
            failures.append(repr(exc))
        finally:
            before_outage.set()
            in_outage.set()

    writer = threading.Thread(target=changes)
    writer.start()
    try:
        assert before_outage.wait(60)
        with api.runtime.db.connection_context():
            with api.runtime.db.atomic():  # a burst, so that the broker dies while the publisher relays it
                for k in range(BURST):
                    events.record("distro.add", messages.distro_add(f"burst-{k}", "anitrack"))
            while (waiting := events.backlog().count) > BURST - 50 and publisher.last_error is None:
                time.sleep(0.005)
            anitrack_rabbitmq.halt(kill=True)
        halted.set()
        assert 0 < waiting < BURST, "the broker was killed mid-stream"
        assert in_outage.wait(60)
        with api.runtime.db.connection_context():
            waiting = events.backlog().count
        assert not failures, failures
        assert waiting > 0, "events wait in the outbox while the broker is down"
        assert f"anitrack_outbox_backlog {waiting}" in api.get("/metrics").text
        anitrack_rabbitmq.restart()
        restarted.set()
        writer.join(120)
        assert not failures, failures
        deadline = time.monotonic() + 60
        with api.runtime.db.connection_context():
            while events.backlog().count and time.monotonic() < deadline:
                time.sleep(0.2)
            assert events.backlog().count == 0, "the backlog drains once the broker is back"
            # the scheduler's path too: a pass finding new versions of every project, relayed at once
            for i in range(0, 36, 5):
                fake_upstream.route(f"/dl{i}/", PAGE_2.replace("foo", f"p{i}"))
            assert Checker(api.runtime).run_pass(everything=True).checked == 36
            while events.backlog().count and time.monotonic() < deadline:
                time.sleep(0.2)
            assert events.backlog().count == 0
    finally:
        halted.set()
        restarted.set()
        writer.join(120)
        publisher.stop()
        if not anitrack_rabbitmq.running:
            anitrack_rabbitmq.restart()
    assert publisher.failures > 0, "the publisher did see the outage"

    rows = outbox(api.runtime)
    connection, channel = pika_channel(anitrack_rabbitmq.url)
    try:
        deliveries = drain(channel, queue, expect=len(rows), timeout=30)
        channel.queue_delete(queue)
    finally:
        connection.close()
    received = [properties.message_id for _, properties, _ in deliveries]
    expected = [row["message_id"] for row in rows]
    assert set(received) == set(expected), f"lost: {len(set(expected) - set(received))} of {len(expected)}"
    first_deliveries = list(dict.fromkeys(received))
    assert first_deliveries == expected, "first deliveries in id order"
    project_of = {row["message_id"]: row["project_id"] for row in rows}
    for project in {row["project_id"] for row in rows}:
        assert ([m for m in first_deliveries if project_of[m] == project]
                == [row["message_id"] for row in rows if row["project_id"] == project])
    duplicates = len(received) - len(set(received))
    assert duplicates <= 2 * len(rows) // 10, f"{duplicates} duplicates: only unconfirmed publishes are resent"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert len(fedora_messages(deliveries)) == len(deliveries)
    topics = {row["topic"] for row in rows}
    assert topics == {"distro.add", "project.add", "project.map.new", "project.edit", "project.version.update",
                      "project.version.update.v2"}
    assert len(during_outage) >= 12 and max(during_outage) < PROMPT, during_outage


@pytest.fixture
def hung_broker():
    """A TCP port that accepts connections and never says a word."""
    server = socket.create_server(("127.0.0.1", 0), backlog=64)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"amqp://guest:guest@127.0.0.1:{server.getsockname()[1]}//"
    stop.set()
    thread.join(5)
    for conn in accepted:
        conn.close()
    server.close()


def test_hung_broker(api, hung_broker, fake_upstream, monkeypatch):
    monkeypatch.setitem(api.runtime.settings._values, "broker_url", hung_broker)
    publisher = fast_publisher(api.runtime.settings).start()
    durations: list[float] = []
    try:
        with api.runtime.db.connection_context():
            timed(durations, distros.add_distro, "Fedora")
        for i in range(5):
            fake_upstream.route(f"/h{i}/", PAGE_1.replace("foo", f"h{i}"))
            answer = timed(durations, api.post, "/api/v2/projects/", json={
                "name": f"h{i}", "homepage": f"https://h{i}.example/", "backend": "custom",
                "version_url": fake_upstream.url(f"/h{i}/")})
            assert answer.status_code == 201
            timed(durations, map_to, api, f"h{i}", "Fedora", f"h{i}")
        with api.runtime.db.connection_context():
            summary = timed(durations, Checker(api.runtime).run_pass, everything=True)
            assert summary.ok == 5
            waiting = events.backlog()
        assert max(durations) < PROMPT, durations
        assert waiting.count == len(outbox(api.runtime)) == 1 + 5 * 2 + 5 * 2, "every event waits in the outbox"
    finally:
        publisher.stop(timeout=30)
