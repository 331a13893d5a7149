"""Webhooks as their users meet them: the API, and deliveries to real receivers on loopback,
verified with the Standard Webhooks reference library."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from standardwebhooks import Webhook as Verifier

from anitrack_core.check.http import guard as netguard
from anitrack_core.db.models import Webhook, WebhookDelivery
from anitrack_core.webhooks.relay import MAX_ATTEMPTS, WebhookRelay

from .helpers import add_project, count_rows
from .receivers import Receiver


def subscribe(api, **fields):
    return api.post("/api/v2/webhooks/", json=fields)


def new_project(api, name):
    answer = api.post("/api/v2/projects/", json={"name": name, "homepage": f"https://{name}.example/",
                                                 "backend": "custom", "version_url": f"https://{name}.example/dl"})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


@pytest.fixture
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def relay(api):
    made = []

    def make(**options):
        options.setdefault("allow_private", True)
        made.append(WebhookRelay(api.runtime.settings, **options))
        return made[-1]

    yield make
    for one in made:
        one.stop(timeout=1)


@pytest.fixture
def private_ok(api, monkeypatch):
    """Subscriptions to loopback receivers: the operator's setting webhook_allow_private, as tests need it."""
    monkeypatch.setitem(api.runtime.settings._values, "webhook_allow_private", True)


# ---- the API -------------------------------------------------------------------------------------------


def test_create_list_and_delete_a_subscription(api, receiver, private_ok):
    created = subscribe(api, url=receiver.url, topics=["project.add"], description="CI")
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["secret"].startswith("whsec_") and body["topics"] == ["project.add"] and body["active"]
    listed = api.get("/api/v2/webhooks/", headers={"Authorization": f"Token {api.token}"}).json()["items"]
    assert [w["id"] for w in listed] == [body["id"]] and "secret" not in listed[0]
    deleted = api.request("DELETE", f"/api/v2/webhooks/{body['id']}/", headers={"Authorization": f"Token {api.token}"})
    assert deleted.status_code == 204
    assert count_rows(api, Webhook) == 0


def test_another_users_subscription_is_not_found(api, receiver, private_ok):
    from anitrack_core.db import accounts

    hook = subscribe(api, url=receiver.url).json()
    with api.runtime.db.connection_context():
        other = accounts.add_token(accounts.add_user("other@example.org", "other"), "x")
    for method, path in (("DELETE", f"/api/v2/webhooks/{hook['id']}/"),
                         ("GET", f"/api/v2/webhooks/{hook['id']}/deliveries/")):
        answer = api.request(method, path, headers={"Authorization": f"Token {other}"})
        assert answer.status_code == 404
    assert count_rows(api, Webhook) == 1


@pytest.mark.parametrize("fields, field", [
    ({"url": "ftp://example.org/hook"}, "url"),
    ({"url": "not a url"}, "url"),
    ({"url": "http://127.0.0.1:9/hook"}, "url"),
    ({"url": "http://0x7f.1/hook"}, "url"),
    ({"url": "http://[::ffff:127.0.0.1]/hook"}, "url"),
    ({"url": "http://169.254.169.254/latest/meta-data"}, "url"),
    ({"url": "http://10.1.2.3/hook"}, "url"),
    ({"url": "https://93.184.216.34/hook", "topics": ["project.nothing"]}, "topics"),
    ({"url": "https://93.184.216.34/hook", "projects": [123456]}, "projects"),
    ({"url": "https://93.184.216.34/hook", "distributions": ["Nowhere"]}, "distributions"),
    ({"url": "https://93.184.216.34/hook", "ecosystems": ["nowhere"]}, "ecosystems"),
    ({"url": "https://93.184.216.34/hook", "colour": "blue"}, "colour"),
    ({}, "url"),
])
def test_bad_subscriptions_are_refused_naming_the_field(api, fields, field):
    answer = subscribe(api, **fields)
    assert answer.status_code == 400, answer.text
    assert field in answer.json()["message"]
    assert count_rows(api, Webhook) == 0


def test_the_number_of_subscriptions_per_user_is_bounded(api, monkeypatch):
    monkeypatch.setitem(api.runtime.settings._values, "webhooks_per_user", 2)
    for _ in range(2):
        assert subscribe(api, url="https://93.184.216.34/hook").status_code == 201
    refused = subscribe(api, url="https://93.184.216.34/hook")
    assert refused.status_code == 400 and "url" in refused.json()["message"]
    assert count_rows(api, Webhook) == 2


def test_the_api_needs_a_token(api):
    assert api.post("/api/v2/webhooks/", auth=False, json={"url": "https://93.184.216.34/"}).status_code == 401
    assert api.get("/api/v2/webhooks/").status_code == 401


# ---- deliveries ----------------------------------------------------------------------------------------


def test_events_arrive_signed_with_the_bus_body_and_filters_apply(api, receiver, relay, private_ok):
    everything = subscribe(api, url=receiver.url).json()
    other = Receiver().start()
    try:
        only_adds_of_fedora = subscribe(api, url=other.url, topics=["project.map.new"],
                                        distributions=["Fedora"]).json()
        project_id = new_project(api, "geany")
        assert api.post("/api/v2/packages/", json={"distribution": "Fedora", "package_name": "geany",
                                                   "project_name": "geany",
                                                   "project_ecosystem": "https://geany.example/"}).status_code == 201
        assert api.post("/api/v2/packages/", json={"distribution": "Debian", "package_name": "geany",
                                                   "project_name": "geany",
                                                   "project_ecosystem": "https://geany.example/"}).status_code == 201
        relay().drain()
        got = [json.loads(r.body) for r in receiver.received]
        assert [r.headers["anitrack-topic"].rsplit(".", 2)[-2:] for r in receiver.received] == [
            ["project", "add"], ["map", "new"], ["map", "new"]]
        assert got[0]["project"]["id"] == project_id
        for seen in receiver.received:
            assert Verifier(everything["secret"]).verify(seen.body, seen.headers) is not None
        assert [json.loads(r.body)["distro"]["name"] for r in other.received] == ["Fedora"]
        Verifier(only_adds_of_fedora["secret"]).verify(other.received[0].body, other.received[0].headers)
    finally:
        other.stop()
    log = api.get(f"/api/v2/webhooks/{everything['id']}/deliveries/",
                  headers={"Authorization": f"Token {api.token}"}).json()["items"]
    assert [d["state"] for d in log] == ["delivered"] * 3 and all(d["last_status"] == 200 for d in log)


def test_a_receiver_down_then_up_gets_everything_once_in_order_with_the_same_ids(api, relay, private_ok):
    receiver = Receiver()  # not listening yet
    subscribe(api, url=receiver.url)
    for name in ("one", "two", "three"):
        new_project(api, name)
    worker = relay()
    worker.drain()
    with api.runtime.db.connection_context():
        waiting = list(WebhookDelivery.select().order_by(WebhookDelivery.id))
        assert [d.state for d in waiting] == ["pending"] * 3 and waiting[0].attempts == 1
        assert waiting[0].next_attempt_on > waiting[0].created_on  # the first retry within a minute
        assert (waiting[0].next_attempt_on - waiting[0].created_on).total_seconds() <= 60
        WebhookDelivery.update(next_attempt_on=waiting[0].created_on).execute()  # the retry is due
    receiver.start()
    try:
        worker.drain()
        assert [json.loads(r.body)["message"]["project"] for r in receiver.received] == ["one", "two", "three"]
        assert len(set(receiver.ids())) == 3
        worker.drain()
        assert len(receiver.received) == 3
    finally:
        receiver.stop()


def test_a_hanging_receiver_does_not_hold_up_the_others(api, relay, private_ok, monkeypatch):
    monkeypatch.setitem(api.runtime.settings._values, "webhook_timeout", 5.0)
    release = threading.Event()
    hanging = Receiver(lambda received: release.wait(15) and 200 or 200).start()
    prompt = Receiver().start()
    try:
        subscribe(api, url=hanging.url)
        subscribe(api, url=prompt.url)
        worker = relay().start()
        started = time.monotonic()
        new_project(api, "first")
        new_project(api, "second")
        deadline = time.monotonic() + 15
        while len(prompt.received) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(prompt.received) == 2
        # one at a time, the prompt receiver's events would wait for the hanging one's 5 s timeout
        assert prompt.received[-1].at - started < 4.5, "the prompt receiver waited for the hanging one"
        worker.stop(timeout=5)
    finally:
        release.set()
        hanging.stop()
        prompt.stop()


def test_410_gone_disables_the_subscription(api, relay, private_ok):
    gone = Receiver(lambda received: 410).start()
    try:
        hook = subscribe(api, url=gone.url).json()
        new_project(api, "a")
        new_project(api, "b")
        relay().drain()
        assert len(gone.received) == 1
    finally:
        gone.stop()
    listed = api.get("/api/v2/webhooks/", headers={"Authorization": f"Token {api.token}"}).json()["items"]
    assert listed[0]["id"] == hook["id"] and not listed[0]["active"] and "410" in listed[0]["disabled_reason"]


def test_a_subscription_failing_for_a_day_is_disabled(api, relay, private_ok):
    failing = Receiver(lambda received: 500).start()
    try:
        subscribe(api, url=failing.url)
        new_project(api, "a")
        worker = relay()
        for _ in range(MAX_ATTEMPTS):
            with api.runtime.db.connection_context():
                WebhookDelivery.update(next_attempt_on=WebhookDelivery.created_on).execute()
            worker.drain()
        assert len(failing.received) == MAX_ATTEMPTS
    finally:
        failing.stop()
    with api.runtime.db.connection_context():
        hook = Webhook.get()
        assert not hook.active and f"after {MAX_ATTEMPTS} failed attempts" in hook.disabled_reason
        assert WebhookDelivery.get().state == "failed"


def test_an_address_refused_at_delivery_is_not_contacted(api, relay, monkeypatch):
    """A host name that resolved to a public address at creation and to loopback later (DNS changes)."""
    receiver = Receiver().start()
    monkeypatch.setattr(netguard, "system_resolver", lambda host, port: ["93.184.216.34"])
    hook = subscribe(api, url=f"http://hooks.example:{receiver.port}/hook").json()
    assert "id" in hook, hook
    new_project(api, "a")
    try:
        relay(allow_private=False, resolver=lambda host, port: ["127.0.0.1"]).drain()
        assert receiver.received == []
    finally:
        receiver.stop()
    with api.runtime.db.connection_context():
        delivery = WebhookDelivery.get()
        assert delivery.state == "pending" and "refused to connect to 127.0.0.1" in delivery.last_error


def test_a_relay_killed_mid_delivery_delivers_after_restart(api, anitrack_env, private_ok, tmp_path):
    release = threading.Event()
    receiver = Receiver(lambda received: 200 if release.is_set() else (time.sleep(30) or 200)).start()
    env = {**os.environ, **anitrack_env, "ANITRACK_WEBHOOK_ALLOW_PRIVATE": "1", "ANITRACK_NO_PLUGIN_AUTOLOAD": "1"}
    try:
        subscribe(api, url=receiver.url)
        new_project(api, "survivor")
        first = subprocess.Popen([sys.executable, "-m", "anitrack_core.cli", "webhooks", "relay"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while not receiver.received and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.received, "the relay never sent the event"
        first.send_signal(signal.SIGKILL)
        first.wait()
        with api.runtime.db.connection_context():
            assert WebhookDelivery.get().state == "pending"
            # the killed relay's lease would otherwise keep the next one waiting for 30 s
            from anitrack_core.db.models import OutboxLease

            OutboxLease.delete().where(OutboxLease.name == "webhooks").execute()
        release.set()
        second = subprocess.run([sys.executable, "-m", "anitrack_core.cli", "webhooks", "relay", "--once"],
                                env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert len(receiver.received) == 2 and len(set(receiver.ids())) == 1
        with api.runtime.db.connection_context():
            assert WebhookDelivery.get().state == "delivered"
    finally:
        release.set()
        receiver.stop()


# ---- the settings pages --------------------------------------------------------------------------------


def test_a_person_subscribes_in_the_settings_pages_and_sees_the_secret_once(api, receiver, private_ok):
    from anitrack_core.db.models import User

    from .pages import csrf_token, signed_in, text_of

    with api.runtime.db.connection_context():
        user = User.get(User.email == "tester@example.org")
    client = signed_in(api, user)
    page = client.get(api.url("/settings/webhooks/"), timeout=10)
    assert page.status_code == 200 and "You have no webhook yet" in text_of(page.text)
    bad = client.post(api.url("/settings/webhooks/new"), timeout=10, allow_redirects=False,
                      data={"csrf_token": csrf_token(page.text), "url": "ftp://example.org/x", "topics": ["project.add"],
                            "ecosystems": ""})
    assert bad.status_code == 400 and 'aria-invalid="true"' in bad.text and 'value="ftp://example.org/x"' in bad.text
    assert 'value="project.add" checked' in bad.text
    made = client.post(api.url("/settings/webhooks/new"), timeout=10, allow_redirects=False,
                       data={"csrf_token": csrf_token(page.text), "url": receiver.url, "topics": ["project.add"]})
    assert made.status_code == 303
    shown = client.get(api.url("/settings/webhooks/"), timeout=10)
    assert "whsec_" in shown.text and "shown only this once" in text_of(shown.text)
    again = client.get(api.url("/settings/webhooks/"), timeout=10)
    assert "whsec_" not in again.text and receiver.url in again.text
    no_csrf = client.post(api.url("/settings/webhooks/new"), timeout=10, allow_redirects=False,
                          data={"url": receiver.url})
    assert no_csrf.status_code == 400
    assert count_rows(api, Webhook) == 1
