"""Every action writes its event to the outbox in its own transaction; bodies validate against anitya-schema.

No broker here: the outbox, the bodies, the signals and the memory:// default.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

import pytest

from anitrack_core import events
from anitrack_core.check.runner import Checker
from anitrack_core.db import distros, projects
from anitrack_core.db.models import OutboxEvent, Project, utcnow
from anitrack_core.events import signals
from anitrack_core.events.publisher import BrokerError, Publisher, wire_headers

from .conftest import PAGE_2, TOKEN_OWNER, create, map_to, outbox, validated


def test_every_action_writes_one_event_that_validates(api, fake_upstream):
    runtime = api.runtime
    with runtime.db.connection_context():
        distros.add_distro("Fedora")
        distros.add_distro("fedora")  # already there: no event
        distros.add_distro("Debian", agent="admin@example.org")
    pid = create(api, fake_upstream)
    map_to(api, "foo", "Fedora", "python-foo")
    map_to(api, "foo", "Debian", "foo")
    with runtime.db.connection_context():
        assert Checker(runtime).run_pass(everything=True).ok == 1
    listing = api.get("/api/v2/versions/", params={"project_id": pid}).json()
    fake_upstream.route("/dl/", PAGE_2)
    answer = api.post("/api/v2/versions/", json={"id": pid, "dry_run": False, "version_scheme": "RPM"})
    assert answer.status_code == 200, answer.text
    found = answer.json()["found_versions"]
    with runtime.db.connection_context():
        projects.delete_project(Project.get_by_id(pid), agent="admin@example.org")

    rows = outbox(runtime)
    assert [row["topic"] for row in rows] == [
        "distro.add", "distro.add", "project.add", "project.map.new", "project.map.new",
        "project.version.update", "project.version.update.v2", "project.edit",
        "project.version.update", "project.version.update.v2", "project.remove"]
    for row in rows:
        validated(row["topic"], row["body"])
        assert row["published_on"] is None and row["attempts"] == 0 and len(row["message_id"]) == 36
        assert row["project_id"] == (None if row["topic"].startswith("distro.") else pid)
    agents = [row["body"]["message"]["agent"] for row in rows]
    assert agents == ["anitrack", "admin@example.org", TOKEN_OWNER, TOKEN_OWNER, TOKEN_OWNER, "anitrack", "anitrack",
                      TOKEN_OWNER, "anitrack", "anitrack", "admin@example.org"]

    add, fedora_map = rows[2]["body"], rows[3]["body"]
    assert add["distro"] is None and add["message"] == {"agent": TOKEN_OWNER, "project": "foo"}
    assert add["project"]["ecosystem"] == "https://foo.example/" and add["project"]["versions"] == []
    assert fedora_map["distro"] == {"name": "Fedora"}
    assert fedora_map["message"] == {"agent": TOKEN_OWNER, "project": "foo", "distro": "Fedora", "new": "python-foo"}

    v1, v2 = rows[5]["body"]["message"], rows[6]["body"]["message"]
    assert v2["upstream_versions"] == list(reversed(listing["versions"])), "every new version, oldest first"
    assert v2["old_version"] == "" == v1["old_version"]
    assert v1["upstream_version"] == listing["latest_version"] and v1["odd_change"] is False
    assert v2["versions"] == listing["versions"] and v2["stable_versions"] == listing["stable_versions"]
    assert v2["project"]["version"] == listing["latest_version"] and v2["project"]["versions"] == listing["versions"]
    assert v2["ecosystem"] == "https://foo.example/"
    assert sorted(v2["packages"], key=str) == sorted([{"package_name": "python-foo", "distro": "Fedora"},
                                                      {"package_name": "foo", "distro": "Debian"}], key=str)
    assert rows[6]["body"]["project"] == v2["project"] and rows[6]["body"]["distro"] is None

    edit = rows[7]["body"]["message"]
    assert edit["fields"] == ["version_scheme"] and edit["changes"] == {"version_scheme": {"old": None, "new": "RPM"}}

    second = rows[9]["body"]["message"]
    assert second["old_version"] == listing["latest_version"]
    assert second["upstream_versions"] == list(reversed(found))
    assert rows[8]["body"]["message"]["upstream_version"] == answer.json()["latest_version"]

    removed = rows[10]["body"]
    assert removed["message"] == {"agent": "admin@example.org", "project": "foo"}
    assert removed["project"]["id"] == pid and removed["project"]["versions"] == answer.json()["versions"]


def test_dry_runs_and_refused_actions_write_no_event(api, fake_upstream):
    pid = create(api, fake_upstream)
    before = len(outbox(api.runtime))
    answer = api.post("/api/v2/versions/", json={"id": pid, "version_filter": "beta", "version_scheme": "RPM"})
    assert answer.status_code == 200 and answer.json()["found_versions"], answer.text  # a dry run with edits
    assert api.session.post(api.base + "/api/version/get", data={"id": pid, "test": "1"}).status_code == 200
    with api.runtime.db.connection_context():
        assert Checker(api.runtime).check_project(pid, dry_run=True).result.new_versions
    assert api.post("/api/v2/packages/", json={"distribution": "Nowhere", "package_name": "p",
                                                "project_name": "foo",
                                                "project_ecosystem": "https://foo.example/"}).status_code == 400
    with api.runtime.db.connection_context():
        distros.add_distro("Fedora")
    map_to(api, "foo", "Fedora", "foo")
    refused = api.post("/api/v2/packages/", json={"distribution": "Fedora", "package_name": "foo",
                                                   "project_name": "foo", "project_ecosystem": "https://foo.example/"})
    assert refused.status_code == 409
    assert [row["topic"] for row in outbox(api.runtime)[before:]] == ["distro.add", "project.map.new"]


def test_a_failing_check_and_a_check_finding_nothing_announce_nothing(api, fake_upstream):
    pid = create(api, fake_upstream)
    with api.runtime.db.connection_context():
        checker = Checker(api.runtime)
        checker.check_project(pid)
        before = len(outbox(api.runtime))
        assert checker.check_project(pid).result.new_versions == []
        fake_upstream.route("/dl/", None)  # 404 from now on
        assert checker.check_project(pid).result.error
    assert len(outbox(api.runtime)) == before


def test_a_hopeless_project_deleted_by_the_checks_is_announced(runtime, fake_upstream, monkeypatch):
    monkeypatch.setattr(runtime.settings, "_values", {**runtime.settings._values, "check_error_threshold": 1})
    with runtime.db.connection_context():
        project = projects.create_project(runtime.plugins, name="gone", homepage="https://gone.example/",
                                          backend="custom", version_url=fake_upstream.url("/missing/"))
        summary = Checker(runtime).run_pass(everything=True)
    assert summary.deleted == 1
    last = outbox(runtime)[-1]
    assert last["topic"] == "project.remove" and last["project_id"] == project.id
    assert last["body"]["message"] == {"agent": "anitrack", "project": "gone"}
    validated("project.remove", last["body"])


def test_signals_are_sent_after_commit_and_never_for_a_rollback(runtime):
    seen = []

    def receiver(sender, **payload):
        seen.append((payload["topic"], payload["body"]["message"]["distro"], runtime.db.in_transaction()))

    class Undo(Exception):
        pass

    with signals.distro_add.connected_to(receiver), runtime.db.connection_context():
        with runtime.db.atomic():
            distros.add_distro("One")
            assert seen == [], "not before the commit"
        assert seen == [("distro.add", "One", False)]
        with pytest.raises(Undo), runtime.db.atomic():
            distros.add_distro("Two")
            raise Undo
        with runtime.db.atomic():
            distros.add_distro("Three")
            with pytest.raises(Undo), runtime.db.atomic():  # a savepoint rolled back inside a committed transaction
                distros.add_distro("Four")
                raise Undo
        distros.add_distro("Five")  # no transaction around it: its own
    assert [distro for _, distro, _ in seen] == ["One", "Three", "Five"]
    assert [row["body"]["distro"]["name"] for row in outbox(runtime)] == ["One", "Three", "Five"]


def test_a_failing_receiver_neither_undoes_the_change_nor_silences_the_others(runtime):
    got = []

    def broken(sender, **payload):
        raise RuntimeError("receiver bug")

    with signals.distro_add.connected_to(broken), signals.distro_add.connected_to(lambda s, **p: got.append(p)):
        with runtime.db.connection_context():
            distro, created = distros.add_distro("Fedora")
    assert created and len(got) == 1 and got[0]["event_id"] == outbox(runtime)[0]["id"]


def test_record_refuses_an_unknown_topic(runtime):
    with runtime.db.connection_context(), pytest.raises(ValueError, match="unknown event topic"):
        events.record("project.exploded", {})
    assert outbox(runtime) == []


def test_a_later_event_of_a_project_waits_for_the_transaction_of_an_earlier_one(runtime):
    """Ids follow commit order per project (SQLite: one writer; PostgreSQL: the project row lock)."""
    with runtime.db.connection_context():
        project = projects.create_project(runtime.plugins, name="p", homepage="https://p.example/", backend="custom",
                                          version_url="https://p.example/dl/")
    holding, release, done = threading.Event(), threading.Event(), threading.Event()
    ids = {}

    def first():
        with runtime.db.connection_context(), runtime.db.atomic():
            ids["first"] = events.record("project.edit", {"n": 1}, project_id=project.id)
            holding.set()
            release.wait(10)
        ids["first_committed"] = time.monotonic()

    def second():
        holding.wait(10)
        with runtime.db.connection_context(), runtime.db.atomic():
            ids["second"] = events.record("project.edit", {"n": 2}, project_id=project.id)
        ids["second_committed"] = time.monotonic()
        done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    assert holding.wait(10)
    assert not done.wait(0.7), "the second event was written while the first one's transaction was open"
    release.set()
    for thread in threads:
        thread.join(15)
    assert ids["first"] < ids["second"] and ids["first_committed"] <= ids["second_committed"]


# ---- the wire headers, against fedora-messaging's own publisher ------------------------------------------

def test_wire_headers_are_those_fedora_messaging_builds(api, fake_upstream):
    from fedora_messaging.message import get_class

    with api.runtime.db.connection_context():
        distros.add_distro("Fedora")
        distros.add_distro("Debian")
    pid = create(api, fake_upstream)
    map_to(api, "foo", "Fedora", "python-foo")
    map_to(api, "foo", "Debian", "foo")
    with api.runtime.db.connection_context():
        Checker(api.runtime).check_project(pid)
    written = datetime(2026, 11, 21, 4, 41, 57, 123456)
    for row in outbox(api.runtime):
        ours = wire_headers(row["topic"], row["body"], written)
        theirs = validated(row["topic"], row["body"])._properties.headers  # what fedora-messaging would send
        assert ours["sent-at"] == "2026-11-21T04:41:57+00:00"
        assert datetime.fromisoformat(theirs["sent-at"]).tzinfo == timezone.utc
        assert {k: v for k, v in ours.items() if k != "sent-at"} == {k: v for k, v in theirs.items() if k != "sent-at"}
        assert get_class(ours["fedora_messaging_schema"]) is type(validated(row["topic"], row["body"]))
    v2 = next(row for row in outbox(api.runtime) if row["topic"] == "project.version.update.v2")
    assert wire_headers(v2["topic"], v2["body"], written)["fedora_messaging_rpm_python-foo"] is True
    assert not any(key.startswith("fedora_messaging_rpm_foo") for key in wire_headers(v2["topic"], v2["body"], written))


# ---- the embedded default broker, the CLI and the metric ----------------------------------------------------

def test_memory_broker_delivers_to_a_consumer_in_the_same_process(api, fake_upstream):
    from kombu import Connection

    from anitrack_core.events.topology import bind_queue

    assert api.runtime.settings.broker_url == "memory://"
    with Connection("memory://") as consumer:
        queue = bind_queue(consumer, "test-memory-events", "amq.topic", ["org.anitrack.project.#"], durable=False)
        try:
            pid = create(api, fake_upstream)
            with api.runtime.db.connection_context():
                assert Publisher(api.runtime.settings).relay() == 1
            message = queue.get(no_ack=True)
            assert message is not None and queue.get() is None
            assert message.delivery_info["routing_key"] == "org.anitrack.project.add"
            assert message.content_encoding == "utf-8" and message.content_type == "application/json"
            assert message.headers["fedora_messaging_schema"] == "anitya.project.add"
            assert message.properties["message_id"] == outbox(api.runtime)[0]["message_id"]
            validated("project.add", message.decode())
            assert message.decode()["project"]["id"] == pid
        finally:
            queue.delete()
    assert outbox(api.runtime)[0]["published_on"] is not None


def test_cli_status_and_publish_once(api, fake_upstream, run_anitrack):
    create(api, fake_upstream)
    create(api, fake_upstream, name="bar", path="/bar/")
    code, out, err = run_anitrack("events", "status", "--json")
    assert code == 0, err
    import json

    state = json.loads(out)
    assert state["backlog"] == 2 and state["oldest_unpublished_id"] == outbox(api.runtime)[0]["id"]
    assert 0 <= state["oldest_unpublished_age_seconds"] < 60 and state["last_published_on"] is None
    code, out, err = run_anitrack("events", "status")
    assert code == 0 and "backlog: 2 event(s)" in out
    code, out, err = run_anitrack("events", "publish", "--once")
    assert (code, out.strip()) == (0, "published 2 event(s)"), err
    state = json.loads(run_anitrack("events", "status", "--json")[1])
    assert state["backlog"] == 0 and state["oldest_unpublished_age_seconds"] is None and state["last_published_on"]


def test_metrics_report_the_backlog(api, fake_upstream):
    create(api, fake_upstream)
    create(api, fake_upstream, name="bar", path="/bar/")
    answer = api.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    lines = answer.text.splitlines()
    assert "# TYPE anitrack_outbox_backlog gauge" in lines and "anitrack_outbox_backlog 2" in lines
    assert any(line.startswith("anitrack_outbox_oldest_age_seconds ") for line in lines)
    with api.runtime.db.connection_context():
        Publisher(api.runtime.settings).relay()
    assert "anitrack_outbox_backlog 0" in api.get("/metrics").text.splitlines()
    assert "anitrack_outbox_oldest_age_seconds 0.000" in api.get("/metrics").text.splitlines()


# ---- the publisher without a broker ----------------------------------------------------------------------

def _settings(runtime, **values):
    runtime.settings._values.update(values)
    return runtime.settings


def test_an_unreachable_broker_stops_the_relay_at_the_first_event_and_counts_the_attempt(runtime, monkeypatch):
    with runtime.db.connection_context():
        for name in ("A", "B"):
            distros.add_distro(name)
        publisher = Publisher(_settings(runtime, broker_url="amqp://guest:guest@127.0.0.1:1//"))
        started = time.monotonic()
        with pytest.raises(BrokerError, match=r"cannot publish event \d+ \(distro.add\)"):
            publisher.relay()
        assert time.monotonic() - started < 10
        publisher.close()
    rows = outbox(runtime)
    assert [row["attempts"] for row in rows] == [1, 0] and all(row["published_on"] is None for row in rows)


def test_one_publisher_at_a_time(runtime):
    with runtime.db.connection_context():
        distros.add_distro("A")
        first, second = Publisher(runtime.settings), Publisher(runtime.settings)
        assert first.relay() == 1 and first.holds_lease
        distros.add_distro("B")
        assert second.relay() == 0 and not second.holds_lease, "the lease is taken"
        assert events.backlog().publisher == first.holder
        first.close()
        assert second.relay() == 1 and second.holds_lease
        second.close()


def test_published_events_are_pruned_after_the_retention(runtime):
    with runtime.db.connection_context():
        distros.add_distro("Old")
        distros.add_distro("New")
        publisher = Publisher(runtime.settings)
        assert publisher.relay() == 2
        old = outbox(runtime)[0]["id"]
        OutboxEvent.update(published_on=utcnow().replace(year=2000)).where(OutboxEvent.id == old).execute()
        publisher._maybe_prune()
        publisher.close()
    assert [row["body"]["distro"]["name"] for row in outbox(runtime)] == ["New"]
