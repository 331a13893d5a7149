"""Flagging a project, and the administrators' flag queue, over HTTP."""

from datetime import datetime

import pytest
import requests

from anitrack_core.db import flags
from anitrack_core.db.models import Project, ProjectFlag

from .actions_helpers import events, flashes, get, last_event, post, token
from .helpers import add_project, count_rows
from .pages import text_of


def test_flagging_writes_and_announces_the_flag_also_on_archived_projects(api, clients):
    pid = add_project(api, name="old", homepage="https://old.example/", packages_=[("Fedora", "old")])
    with api.runtime.db.connection_context():
        Project.update(archived=True).where(Project.id == pid).execute()
    client = clients["user"]
    page = get(client, api, f"/project/{pid}/flag")
    assert page.status_code == 200 and "archived" in text_of(page.text)
    before = last_event(api)
    answer = post(client, api, f"/project/{pid}/flag", {"reason": "please unarchive: it lives on GitHub now",
                                                        "csrf_token": token(client, api)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/project/{pid}/")
    (row,) = events(api, before)
    assert row["topic"] == "project.flag"
    assert row["body"]["message"]["reason"] == "please unarchive: it lives on GitHub now"
    assert row["body"]["message"]["packages"] == [{"package_name": "old", "distro": "Fedora"}]
    with api.runtime.db.connection_context():
        assert ProjectFlag.get().user == "alice@example.org"
    assert "flagged for the administrators" in flashes(client, api, "/settings/")


@pytest.mark.parametrize("reason", ["", "   ", "x" * (flags.REASON_MAX + 1)])
def test_a_missing_or_too_long_reason_is_refused(api, clients, reason):
    pid = add_project(api, name="foo", homepage="https://foo.example/")
    client = clients["user"]
    answer = post(client, api, f"/project/{pid}/flag", {"reason": reason, "csrf_token": token(client, api)})
    assert answer.status_code == 400 and 'id="reason-error"' in answer.text
    if reason.strip():
        assert reason in answer.text, "what was typed is kept"
    assert count_rows(api, ProjectFlag) == 0


def test_flag_needs_csrf_sign_in_and_a_project(api, clients):
    pid = add_project(api, name="foo", homepage="https://foo.example/")
    assert post(clients["user"], api, f"/project/{pid}/flag", {"reason": "x"}).status_code == 400
    assert "/login/" in post(requests, api, f"/project/{pid}/flag", {"reason": "x"}).headers["Location"]
    assert get(clients["user"], api, "/project/999/flag").status_code == 404
    assert count_rows(api, ProjectFlag) == 0


def seed_flags(api):
    foo = add_project(api, name="foo", homepage="https://foo.example/")
    bar = add_project(api, name="bar", homepage="https://bar.example/")
    with api.runtime.db.connection_context():
        projects = {p.id: p for p in Project.select()}
        first = flags.flag_project(projects[foo], "foo is wrong", user="a@example.org")
        flags.flag_project(projects[bar], "bar is wrong", user="b@example.org")
        closed = flags.flag_project(projects[bar], "bar again", user="a@example.org")
        flags.set_flag_state(closed, "closed")
        ProjectFlag.update(created_on=datetime(2020, 1, 1)).where(ProjectFlag.id == first.id).execute()
    return first.id, closed.id


def test_the_queue_filters_and_keeps_the_filters_after_an_action(api, clients):
    first, closed = seed_flags(api)
    admin = clients["admin"]
    assert get(clients["user"], api, "/flags").status_code == 403
    assert "/login/" in get(requests, api, "/flags").headers["Location"]

    def reasons(query=""):
        page = get(admin, api, "/flags" + query)
        assert page.status_code == 200, query
        return [r for r in ("foo is wrong", "bar is wrong", "bar again") if r in page.text]

    assert reasons() == ["foo is wrong", "bar is wrong"], "open flags by default"
    assert reasons("?state=all") == reasons("?state=") == ["foo is wrong", "bar is wrong", "bar again"]
    assert reasons("?state=closed") == ["bar again"]
    assert reasons("?state=all&project=BAR") == ["bar is wrong", "bar again"]
    assert reasons("?state=all&user=a@example.org") == ["foo is wrong", "bar again"]
    assert reasons("?state=all&from_date=2021-01-01") == ["bar is wrong", "bar again"]
    bad = get(admin, api, "/flags?from_date=yesterday")
    assert bad.status_code == 400 and 'id="from_date-error"' in bad.text
    assert get(admin, api, "/flags?state=maybe").status_code == 400

    before = last_event(api)
    queue = "/flags?state=all&user=a%40example.org"
    answer = post(admin, api, f"/flags/{first}/set/closed", {"csrf_token": token(admin, api), "next": queue})
    assert answer.status_code == 303 and answer.headers["Location"].endswith(queue)
    (row,) = events(api, before)
    assert row["topic"] == "project.flag.set" and row["body"]["message"]["state"] == "closed"
    post(admin, api, f"/flags/{first}/set/closed", {"csrf_token": token(admin, api)})
    assert "already closed" in flashes(admin, api, "/settings/")
    assert len(events(api, before)) == 1, "same state: no event"
    assert post(admin, api, f"/flags/{closed}/set/open", {"csrf_token": token(admin, api)}).status_code == 303
    assert len(events(api, before)) == 2


def test_flag_state_changes_are_for_administrators_with_csrf(api, clients):
    first, _ = seed_flags(api)
    before = last_event(api)
    assert post(clients["user"], api, f"/flags/{first}/set/closed",
                {"csrf_token": token(clients["user"], api)}).status_code == 403
    assert post(clients["admin"], api, f"/flags/{first}/set/closed", {}).status_code == 400
    assert post(requests, api, f"/flags/{first}/set/closed").headers["Location"].endswith("/login/?next=/flags")
    csrf = token(clients["admin"], api)
    assert post(clients["admin"], api, "/flags/999/set/closed", {"csrf_token": csrf}).status_code == 404
    assert post(clients["admin"], api, f"/flags/{first}/set/maybe", {"csrf_token": csrf}).status_code == 404
    assert last_event(api) == before


def test_the_queue_is_paged(api, clients):
    pid = add_project(api, name="foo", homepage="https://foo.example/")
    with api.runtime.db.connection_context():
        project = Project.get_by_id(pid)
        for index in range(55):
            flags.flag_project(project, f"reason {index}", user="a@example.org")
    page = get(clients["admin"], api, "/flags?state=open&page=2")
    assert page.status_code == 200 and "Page 2 of 2" in text_of(page.text)
    assert "state=open" in page.text.split('rel="prev"')[0].rsplit("href=", 1)[-1]


def test_the_queue_costs_the_same_queries_whatever_its_size(api, clients):
    import logging

    from .test_query_counts import QueryCounter

    pid = add_project(api, name="foo", homepage="https://foo.example/")
    other = add_project(api, name="bar", homepage="https://bar.example/")
    logger, handler = logging.getLogger("peewee"), QueryCounter()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        def measure():
            handler.count = 0
            assert get(clients["admin"], api, "/flags?state=all").status_code == 200
            return handler.count

        with api.runtime.db.connection_context():
            flags.flag_project(Project.get_by_id(pid), "one", user="a@example.org")
        small = measure()
        with api.runtime.db.connection_context():
            for index in range(30):
                flags.flag_project(Project.get_by_id(other if index % 2 else pid), f"r{index}", user="b@example.org")
        assert measure() == small
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
