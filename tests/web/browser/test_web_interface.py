"""The web interface in a real browser, as its people use it: a contributor adds, maps and flags a
project; an administrator archives it, closes the flag, deletes a version and unarchives it. Every
page they see passes axe-core, and the version removal reaches consumers on a real RabbitMQ."""

from __future__ import annotations

import os
import uuid
import warnings
from pathlib import Path

import pytest
import requests

from anitrack_core.db.models import Project, ProjectFlag, ProjectVersion
from anitrack_core.events.publisher import Publisher

from events.brokers import bound_queue, drain, fedora_messages, pika_channel

from .browsing import main_text, sign_in

pytestmark = pytest.mark.browser

PREFIX = "org.release-monitoring.prod.anitya"
RELEASES = '<a href="geany-1.38.tar.gz">1.38</a>\n<a href="geany-2.0.tar.gz">2.0</a>\n<a href="geany-2.1.tar.gz">2.1</a>\n'
#: ANITRACK_DOC_SCREENSHOTS=1 writes the screenshots of the main pages into docs/screenshots (for the README)
#: (read at import: the test environment clears ANITRACK_* variables)
DOC_SCREENSHOTS = (Path(__file__).resolve().parents[3] / "docs" / "screenshots"
                   if os.environ.get("ANITRACK_DOC_SCREENSHOTS") else None)


class Visits:
    """Opens pages and keeps what axe-core finds wrong on each, and screenshots of the main ones."""

    def __init__(self, base: str, problems_of) -> None:
        self.base = base
        self.problems_of = problems_of
        self.problems: list[str] = []
        self.checked: set[str] = set()

    def check(self, page, shot: str | None = None) -> None:
        page.wait_for_load_state()
        key = page.url.split("?")[0]
        if key not in self.checked:
            self.checked.add(key)
            self.problems += self.problems_of(page)
        if shot and DOC_SCREENSHOTS is not None:
            DOC_SCREENSHOTS.mkdir(exist_ok=True)
            page.set_viewport_size({"width": 1280, "height": 800})
            page.screenshot(path=DOC_SCREENSHOTS / f"{shot}.png", full_page=True)

    def go(self, page, path: str, shot: str | None = None):
        answer = page.goto(self.base + path)
        self.check(page, shot)
        return answer


@pytest.fixture
def rabbit(api, anitrack_rabbitmq, monkeypatch):
    monkeypatch.setitem(api.runtime.settings._values, "broker_url", anitrack_rabbitmq.url)
    monkeypatch.setitem(api.runtime.settings._values, "topic_prefix", PREFIX)
    connection, channel = pika_channel(anitrack_rabbitmq.url)
    queue = f"test-ui-{uuid.uuid4().hex[:8]}"
    bound_queue(channel, queue, "amq.topic", [f"{PREFIX}.#"])
    yield channel, queue
    channel.queue_delete(queue)
    connection.close()


def test_a_contributor_and_an_administrator_look_after_a_project(api, new_page, accessibility_problems,
                                                                  fake_upstream, rabbit):
    fake_upstream.route("/geany/releases", RELEASES)
    visits = Visits(api.base, accessibility_problems)
    alice, root = new_page(), new_page()

    # a new user signs in and adds a project, testing it first
    sign_in(alice, api.base, "alice", next_path="/project/new")
    visits.check(alice)
    alice.get_by_label("Name", exact=True).fill("geany")
    alice.get_by_label("Homepage").fill("https://www.geany.org/")
    alice.get_by_label("Backend", exact=True).select_option("custom")
    alice.get_by_label("Version URL").fill(fake_upstream.url("/geany/releases"))
    alice.get_by_role("button", name="Test (check without saving)").click()
    visits.check(alice, "add-project-tested")
    assert "3 versions found; the latest is 2.1. Nothing was saved." in main_text(alice)
    with api.runtime.db.connection_context():
        assert Project.select().count() == 0
    alice.get_by_label("Check for versions right after saving").check()
    alice.get_by_role("button", name="Save", exact=True).click()
    alice.wait_for_url(f"{api.base}/project/*/")
    visits.check(alice)
    with api.runtime.db.connection_context():
        project = Project.get(Project.name == "geany")
        assert {v.version for v in project.versions} == {"1.38", "2.0", "2.1"}
    pid = project.id

    # maps it to a package and flags it
    alice.get_by_role("link", name="Add mapping").click()
    visits.check(alice)
    alice.get_by_label("Distribution").select_option("Fedora")
    alice.get_by_label("Package name").fill("geany")
    alice.get_by_role("button", name="Add mapping").click()
    alice.wait_for_url(f"{api.base}/project/{pid}/")
    assert "Fedora" in main_text(alice)
    alice.get_by_role("link", name="Flag", exact=True).click()
    visits.check(alice)
    alice.get_by_label("Reason").fill("Version 2.0 was withdrawn upstream, please delete it.")
    alice.get_by_role("button", name="Flag the project").click()
    alice.wait_for_url(f"{api.base}/project/{pid}/")
    visits.check(alice, "project")
    alice.goto(api.base + "/settings/")
    alice.get_by_role("button", name="Create token").click()
    token = alice.locator("#new-token-value").input_value()

    # an administrator archives it: the contributor can no longer edit it, nor check it by the API
    sign_in(root, api.base, "root", next_path=f"/project/{pid}/")
    root.get_by_role("button", name="Archive").click()
    root.wait_for_url(f"{api.base}/project/{pid}/")
    visits.check(root)
    alice.goto(f"{api.base}/project/{pid}/")
    assert alice.get_by_role("link", name="Edit", exact=True).count() == 0
    assert alice.goto(f"{api.base}/project/{pid}/edit").status == 403
    checked = requests.post(api.url("/api/v2/versions/"), json={"id": pid},
                            headers={"Authorization": f"Token {token}"}, timeout=10)
    assert checked.status_code == 404

    # closes the flag
    visits.go(root, "/flags", "flags")
    root.get_by_role("button", name="Close").first.click()
    root.wait_for_load_state()
    with api.runtime.db.connection_context():
        assert ProjectFlag.get().state == "closed"

    # deletes the withdrawn version, which consumers hear of on the bus
    visits.go(root, f"/project/{pid}/")
    root.locator(f'a[href="/project/{pid}/delete/2.0"]').click()
    visits.check(root)
    root.locator("main form button.danger").click()
    root.wait_for_url(f"{api.base}/project/{pid}/")
    with api.runtime.db.connection_context():
        assert {v.version for v in ProjectVersion.select().where(ProjectVersion.project == pid)} == {"1.38", "2.1"}
        publisher = Publisher(api.runtime.settings)
        publisher.relay()
        publisher.close()
    channel, queue = rabbit
    deliveries = drain(channel, queue, expect=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        messages = fedora_messages(deliveries)  # each validated with its anitya-schema class
    topics = [m.topic.removeprefix(PREFIX + ".") for m in messages]
    assert {"project.add", "project.map.new", "project.flag", "project.edit"} <= set(topics)
    assert "project.flag.set" in topics
    removed = [m for m in messages if m.topic.endswith("project.version.remove.v2")]
    assert len(removed) == 1 and removed[0].body["message"]["versions"] == ["2.0"]
    assert type(removed[0]).__name__ == "ProjectVersionDeletedV2"

    # and unarchives it
    root.get_by_role("button", name="Unarchive").click()
    root.wait_for_url(f"{api.base}/project/{pid}/")
    with api.runtime.db.connection_context():
        assert not Project.get_by_id(pid).archived
    alice.goto(f"{api.base}/project/{pid}/")
    assert alice.get_by_role("link", name="Edit", exact=True).count() == 1

    # the other pages of the tour, checked too
    for path, shot in (("/", "home"), ("/projects/", "projects"), ("/projects/?status=updated", None),
                       ("/projects/search/?pattern=gea", None), ("/projects/updates/failed", None),
                       ("/distros/", None), ("/distro/Fedora/", "distribution"), ("/logs", None),
                       ("/failures/", None), ("/changes/", "changes"), (f"/project/{pid}/", None)):
        assert visits.go(alice, path, shot).status == 200, path
    for path, shot in (("/dashboard/", "dashboard"), ("/users/", None), ("/distro/add", None),
                       (f"/project/{pid}/edit", None), (f"/project/{pid}/delete", None),
                       ("/settings/", None), ("/settings/webhooks/", None)):
        assert visits.go(root, path, shot).status == 200, path
    assert not visits.problems, "\n".join(visits.problems)

    # readable on a phone: no page is wider than the screen (wide tables scroll in their own box)
    alice.set_viewport_size({"width": 390, "height": 844})
    for path in ("/", "/projects/", f"/project/{pid}/", "/distros/", "/distro/Fedora/", "/project/new",
                 "/settings/", "/changes/", "/logs"):
        alice.goto(api.base + path)
        width = alice.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], f"{path} is {width[0]} px wide on a {width[1]} px screen"
