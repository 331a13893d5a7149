"""Atom feeds, read as feed readers read them (feedparser), checked against the store."""

from __future__ import annotations

from email.utils import format_datetime
from datetime import datetime, timezone

import feedparser
import pytest

from .helpers import add_project


def parsed(response):
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.bozo_exception
    return feed


@pytest.fixture
def catalogue(api):
    geany = add_project(api, name="geany", homepage="https://www.geany.org/", versions=["1.0", "1.1", "2.0rc1"],
                        packages_=[("Fedora", "geany")])
    requests_id = add_project(api, name="requests", homepage="https://pypi.org/project/requests", backend="PyPI",
                              versions=["2.31.0", "2.32.0"], packages_=[("Debian", "python-requests")])
    hidden = add_project(api, name="hidden", homepage="https://hidden.example/", versions=["1.0", "1.0-beta"],
                         version_filter="beta")
    return {"geany": geany, "requests": requests_id, "hidden": hidden}


def test_a_projects_feed_lists_its_versions_newest_first_with_pre_releases_marked(api, catalogue):
    feed = parsed(api.get(f"/feeds/project/{catalogue['geany']}.atom"))
    assert feed.feed.title == "New versions of geany"
    assert [e.title for e in feed.entries] == ["geany 2.0rc1 (pre-release)", "geany 1.1", "geany 1.0"]
    assert [t.term for t in feed.entries[0].tags] == ["pre-release"]
    assert feed.entries[1].link.endswith(f"/project/{catalogue['geany']}/")
    assert feed.entries[0].updated_parsed[:3] == (2024, 1, 3)
    stable = parsed(api.get(f"/feeds/project/{catalogue['geany']}.atom", params={"stable": "1"}))
    assert [e.title for e in stable.entries] == ["geany 1.1", "geany 1.0"]


def test_versions_the_projects_filter_hides_are_not_in_its_feed(api, catalogue):
    feed = parsed(api.get(f"/feeds/project/{catalogue['hidden']}.atom"))
    assert [e.title for e in feed.entries] == ["hidden 1.0"]


def test_the_distribution_ecosystem_and_recent_feeds_hold_their_projects(api, catalogue):
    fedora = parsed(api.get("/feeds/distro/fedora.atom"))
    assert {e.title.split()[0] for e in fedora.entries} == {"geany"}
    pypi = parsed(api.get("/feeds/ecosystem/pypi.atom"))
    assert [e.title for e in pypi.entries] == ["requests 2.32.0", "requests 2.31.0"]
    recent = parsed(api.get("/feeds/recent.atom"))
    assert len(recent.entries) == 3 + 2 + 1
    assert len({e.id for e in recent.entries}) == len(recent.entries)


def test_a_feed_holds_at_most_50_entries(api):
    add_project(api, name="busy", homepage="https://busy.example/", versions=[f"1.{n}" for n in range(28)]
                + [f"2.{n}" for n in range(28)])
    feed = parsed(api.get("/feeds/recent.atom"))
    assert len(feed.entries) == 50


def test_conditional_requests_get_304(api, catalogue):
    first = api.get(f"/feeds/project/{catalogue['geany']}.atom")
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    assert api.get(f"/feeds/project/{catalogue['geany']}.atom", headers={"If-None-Match": etag}).status_code == 304
    assert api.get(f"/feeds/project/{catalogue['geany']}.atom",
                   headers={"If-Modified-Since": modified}).status_code == 304
    older = format_datetime(datetime(2023, 1, 1, tzinfo=timezone.utc), usegmt=True)
    assert api.get(f"/feeds/project/{catalogue['geany']}.atom",
                   headers={"If-Modified-Since": older}).status_code == 200


@pytest.mark.parametrize("path", ["/feeds/project/999999.atom", "/feeds/distro/nowhere.atom",
                                  "/feeds/ecosystem/nowhere.atom"])
def test_unknown_feeds_are_404(api, path):
    assert api.get(path).status_code == 404


def test_an_empty_feed_is_still_valid(api):
    feed = parsed(api.get("/feeds/recent.atom"))
    assert feed.entries == []


def test_pages_link_their_feeds(api, catalogue):
    assert f'href="/feeds/project/{catalogue["geany"]}.atom"' in api.get(f"/project/{catalogue['geany']}/").text
    assert 'href="/feeds/distro/Fedora.atom"' in api.get("/distro/Fedora/").text
    assert 'href="/feeds/ecosystem/pypi.atom"' in api.get("/projects/", params={"ecosystem": "pypi"}).text
    assert 'href="/feeds/recent.atom"' in api.get("/").text
