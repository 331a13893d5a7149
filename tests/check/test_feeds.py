"""Feeds of recent releases: parsing helpers, and which stored projects the feeds name."""

from __future__ import annotations

import types

import pytest

from anitrack_core import hookimpl
from anitrack_core.backend import Backend, FeedEntry
from anitrack_core.check.feeds import implements_feed, projects_named_by_feeds, rss_items
from anitrack_core.check.http import FetchError, FetchPolicy, HttpClient
from anitrack_core.db.models import Project
from anitrack_core.ecosystem import Ecosystem
from anitrack_core.errors import BackendError


class IndexBackend(Backend):
    name = "Index"
    seen_http: list = []

    def recent_releases(self, http):
        IndexBackend.seen_http.append(http)
        return [FeedEntry("Requests", "2.0"), FeedEntry("archived-one", "1.0"), FeedEntry("other", "3", None),
                FeedEntry("requests", "2.1", "https://x.example/")]


class IndexEcosystem(Ecosystem):
    name = "index"
    default_backend = "Index"


class DirBackend(Backend):
    name = "Dir"

    def recent_releases(self, http):
        return [FeedEntry("other", "1.0")]


class BrokenFeedBackend(Backend):
    name = "BrokenFeed"

    def recent_releases(self, http):
        raise BackendError("feed is down")


class BuggyFeedBackend(Backend):
    name = "BuggyFeed"

    def recent_releases(self, http):
        raise KeyError("oops")


class NoFeedBackend(Backend):
    name = "NoFeed"

    def recent_releases(self, http):  # same as not overriding: still asked, returns nothing
        return []


class PlainBackend(Backend):
    name = "Plain"


def _plugin():
    module = types.ModuleType("feed_test")

    @hookimpl
    def anitrack_register_backends(registry):
        for cls in (IndexBackend, DirBackend, BrokenFeedBackend, BuggyFeedBackend, NoFeedBackend, PlainBackend):
            registry.add(cls)

    @hookimpl
    def anitrack_register_ecosystems(registry):
        registry.add(IndexEcosystem)

    module.anitrack_register_backends = anitrack_register_backends
    module.anitrack_register_ecosystems = anitrack_register_ecosystems
    return module


@pytest.fixture
def plugins(register_plugin, anitrack_plugins):
    info = register_plugin(_plugin(), "feed-test")
    assert info.status == "loaded", info.error
    return anitrack_plugins


@pytest.fixture
def http():
    client = HttpClient(FetchPolicy(user_agent="test", allow_private=True, deadline=5))
    yield client
    client.close()


def add(plugins, name, backend, **fields):
    from anitrack_core.db.projects import create_project

    return create_project(plugins, name=name, backend=backend,
                          homepage=fields.pop("homepage", f"https://{backend.lower()}.example/{name}"), **fields).id


def test_implements_feed():
    assert implements_feed(IndexBackend) and not implements_feed(PlainBackend)
    assert Backend().recent_releases(None) == []


def test_projects_named_by_feeds(anitrack_db, plugins, http, caplog):
    requests_id = add(plugins, "requests", "Index")
    archived_id = add(plugins, "archived-one", "Index")
    Project.update(archived=True).where(Project.id == archived_id).execute()
    other_in_dir = add(plugins, "Other", "Dir")
    add(plugins, "other", "Plain")          # named by no feed of its backend
    add(plugins, "unrelated", "Index")
    add(plugins, "other", "BrokenFeed")

    IndexBackend.seen_http.clear()
    with caplog.at_level("WARNING"):
        found = projects_named_by_feeds(plugins, http)
    assert sorted(found) == sorted([requests_id, other_in_dir])
    assert len(found) == len(set(found))
    assert "feed is down" in caplog.text and "BuggyFeed" in caplog.text
    # each feed gets a per-check client of its own
    assert IndexBackend.seen_http and IndexBackend.seen_http[0].__class__.__name__ == "CheckHttp"


def test_names_are_matched_within_the_ecosystem(anitrack_db, plugins):
    index_id = add(plugins, "Requests", "Index")
    # a project of another backend, not in the ecosystem, named alike: not taken
    add(plugins, "requests", "Plain")
    client = object()  # no for_check(): used as it is
    IndexBackend.seen_http.clear()
    assert projects_named_by_feeds(plugins, client) == [index_id]
    assert IndexBackend.seen_http == [client]


def test_backend_instances_can_come_from_the_engine(anitrack_db, plugins, http):
    dir_id = add(plugins, "other", "Dir")
    asked = []

    def backend_for(name):
        asked.append(name)
        return plugins.backends.get(name)()

    assert projects_named_by_feeds(plugins, http, backend_for=backend_for) == [dir_id]
    assert sorted(asked) == ["BrokenFeed", "BuggyFeed", "Dir", "Index", "NoFeed"]


def test_nothing_stored(anitrack_db, plugins, http):
    assert projects_named_by_feeds(plugins, http) == []


RSS2 = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title> foo 1.0 </title><link>https://x.example/foo</link><description>d</description></item>
<item><title></title></item></channel></rss>"""
ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<entry><title>bar-2.0</title><link href="https://x.example/bar"/></entry></feed>"""


def test_rss_items():
    assert rss_items(RSS2, "u") == [{"title": "foo 1.0", "link": "https://x.example/foo", "description": "d"}, {}]
    assert rss_items(ATOM, "u") == [{"title": "bar-2.0", "link": "https://x.example/bar"}]


@pytest.mark.parametrize("content, message", [
    (b"<rss><channel>", "not well-formed XML"),
    (b'<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>', "declares XML entities"),
])
def test_rss_items_refuses(content, message):
    with pytest.raises(FetchError, match=message):
        rss_items(content, "https://feed.example/")


LAUGHS = ('<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE rss [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
          "<rss><channel><item><title>&b; 1.0</title></item></channel></rss>")


def test_a_utf16_feed_declaring_entities_is_refused():
    content = LAUGHS.encode("utf-16")  # with its byte-order mark: no byte sequence b"<!ENTITY" in it
    assert b"<!ENTITY" not in content
    with pytest.raises(FetchError, match="declares XML entities"):
        rss_items(content, "https://feed.example/")


def test_a_utf16_feed_without_entities_is_read():
    plain = '<?xml version="1.0" encoding="UTF-16"?><rss><channel><item><title>caf\u00e9 1.0</title></item></channel></rss>'
    assert rss_items(plain.encode("utf-16"), "https://feed.example/") == [{"title": "caf\u00e9 1.0"}]
