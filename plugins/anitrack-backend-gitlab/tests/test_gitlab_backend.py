"""The GitLab backend on its own: API URLs, and every answer of a fake GitLab on loopback."""

import json
from datetime import datetime, timedelta, timezone

import pytest

import anitrack_backend_gitlab as gl
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

API = "/api/v4/projects/group%2Fproject/repository/tags"


def spec(homepage, version_url=None, *, id=1, name="project"):
    return ProjectSpec(id=id, name=name, homepage=homepage, backend="GitLab", version_url=version_url)


def tags(*names, **headers):
    body = [{"name": n, "target": "f00", "commit": {"id": "abc", "web_url": f"https://gl.example/c/{n}"}} for n in names]
    return Answer(200, json.dumps(body), {"Content-Type": "application/json", **headers})


def run(fake_upstream, anitrack_http, *, id=1):
    project = spec(fake_upstream.url("/group/project"), id=id)
    return gl.GitLabBackend().get_versions(project, anitrack_http.for_check())


# ---- registration and URLs ----

def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(gl, "gitlab").status == "loaded"
    backend = anitrack_plugins.backends.get("gitlab")
    assert backend is gl.GitLabBackend and backend.shared_rate_limit is False


@pytest.mark.parametrize("homepage, version_url, url", [
    ("https://gitlab.com/test/test", None, "https://gitlab.com/api/v4/projects/test%2Ftest/repository/tags"),
    ("https://gitlab.com/group/subgroup/test", None,
     "https://gitlab.com/api/v4/projects/group%2Fsubgroup%2Ftest/repository/tags"),
    ("https://example.org", None, ""),
    ("https://example.org/", None, ""),
    ("https://example.org/only-one", None, ""),
    ("https://x.org", "https://gitlab.gnome.org/GNOME/gnome-video-arcade",
     "https://gitlab.gnome.org/api/v4/projects/GNOME%2Fgnome-video-arcade/repository/tags"),
    ("https://gitlab.com/a/b/", None, "https://gitlab.com/api/v4/projects/a%2Fb/repository/tags"),
    ("https://gitlab.com/a/b.git", None, "https://gitlab.com/api/v4/projects/a%2Fb/repository/tags"),
    ("https://gitlab.com/a/b/-/tags?sort=updated_desc", None,
     "https://gitlab.com/api/v4/projects/a%2Fb/repository/tags"),
    ("http://git.example:8080/a/b", None, "http://git.example:8080/api/v4/projects/a%2Fb/repository/tags"),
    ("https://GitLab.com/My.Group/my_project", None,
     "https://gitlab.com/api/v4/projects/My.Group%2Fmy_project/repository/tags"),
    ("ftp://gitlab.com/a/b", None, ""),
    ("gitlab.com/a/b", None, ""),
    ("", None, ""),
])
def test_tags_api_url(homepage, version_url, url):
    assert gl.tags_api_url(spec(homepage, version_url)) == url


@pytest.mark.parametrize("headers, page", [
    ({"X-Next-Page": "2"}, 2),
    ({"X-Next-Page": ""}, None),
    ({"X-Next-Page": "junk"}, None),
    ({"Link": '<https://g/api/v4/projects/a%2Fb/repository/tags?id=a%2Fb&page=3&per_page=20>; rel="next", '
              '<https://g/x?page=1>; rel="first"'}, 3),
    ({"Link": '<https://g/x?page=1>; rel="first", <https://g/x?page=5>; rel="last"'}, None),
    ({}, None),
])
def test_next_page(headers, page):
    assert gl.next_page(headers) == page


def test_not_a_gitlab_url(check_http):
    with pytest.raises(BackendError, match="incorrectly set up"):
        gl.GitLabBackend().get_versions(spec("https://example.org"), check_http)


# ---- answers ----

def test_single_page(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", tags("1.1", "1.0", **{"X-Next-Page": ""}))
    found = run(fake_upstream, anitrack_http)
    assert [(v.version, v.commit_url) for v in found] == [
        ("1.1", "https://gl.example/c/1.1"), ("1.0", "https://gl.example/c/1.0")]
    request = fake_upstream.requests[0]
    assert request.headers["If-Modified-Since"] == "Thu, 01 Jan 1970 00:00:00 GMT"
    assert request.headers["Accept"] == "application/json"


def test_every_page_of_a_stored_project(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", tags("3.0", "2.0", **{"X-Next-Page": "2"}))
    fake_upstream.route(API + "?page=2&per_page=100", tags("1.1", **{"X-Next-Page": "3"}))
    fake_upstream.route(API + "?page=3&per_page=100", tags("1.0", "1.1", **{"X-Next-Page": ""}))
    assert [v.version for v in run(fake_upstream, anitrack_http)] == ["3.0", "2.0", "1.1", "1.0"]
    assert [r.path for r in fake_upstream.requests] == [
        API + "?per_page=100", API + "?page=2&per_page=100", API + "?page=3&per_page=100"]
    # only the first page is asked conditionally
    assert [("If-Modified-Since" in r.headers) for r in fake_upstream.requests] == [True, False, False]


def test_link_header_pagination(fake_upstream, anitrack_http):
    link = f'<{fake_upstream.url(API)}?id=group%2Fproject&page=2&per_page=100>; rel="next"'
    fake_upstream.route(API + "?per_page=100", tags("2.0", Link=link))
    fake_upstream.route(API + "?page=2&per_page=100", tags("1.0"))
    assert [v.version for v in run(fake_upstream, anitrack_http)] == ["2.0", "1.0"]


def test_temporary_project_reads_the_first_page_with_server_defaults(fake_upstream, anitrack_http):
    fake_upstream.route(API, tags("2.0", **{"X-Next-Page": "2"}))
    assert [v.version for v in run(fake_upstream, anitrack_http, id=None)] == ["2.0"]
    assert [r.path for r in fake_upstream.requests] == [API]


def test_pagination_never_goes_backwards(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", tags("2.0", **{"X-Next-Page": "1"}))
    assert [v.version for v in run(fake_upstream, anitrack_http)] == ["2.0"]
    assert len(fake_upstream.requests) == 1


def test_an_empty_page_ends_the_pagination(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", tags("2.0", **{"X-Next-Page": "2"}))
    fake_upstream.route(API + "?page=2&per_page=100", tags(**{"X-Next-Page": "3"}))
    assert [v.version for v in run(fake_upstream, anitrack_http)] == ["2.0"]
    assert len(fake_upstream.requests) == 2


def test_a_failing_later_page_fails_the_check(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", tags("2.0", **{"X-Next-Page": "2"}))
    with pytest.raises(BackendError, match='status 404 "Not Found"'):
        run(fake_upstream, anitrack_http)


def test_not_modified(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", Answer(304, "", {"ETag": 'W/"x"'}))
    project = spec(fake_upstream.url("/group/project"))
    with pytest.raises(NotModified):
        gl.GitLabBackend().get_versions(project, anitrack_http.for_check(validators=Validators(etag='W/"x"')))
    assert fake_upstream.requests[0].headers["If-None-Match"] == 'W/"x"'


def test_no_tags(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", tags())
    with pytest.raises(BackendError, match="No upstream version found"):
        run(fake_upstream, anitrack_http)


def test_unknown_project(fake_upstream, anitrack_http):
    fake_upstream.route(API + "?per_page=100", Answer(404, '{"message":"404 Project Not Found"}'))
    with pytest.raises(BackendError, match=r'status 404 "Not Found" \(404 Project Not Found\)$'):
        run(fake_upstream, anitrack_http)


@pytest.mark.parametrize("body", ["<html>sign in</html>", '{"message": "x"}'])
def test_malformed_answers(fake_upstream, anitrack_http, body):
    fake_upstream.route(API + "?per_page=100", Answer(200, body))
    with pytest.raises(BackendError, match="project: "):
        run(fake_upstream, anitrack_http)


def test_tags_without_names_or_commits_are_tolerated(fake_upstream, anitrack_http):
    body = [{"name": "1.0"}, {"name": ""}, {"nom": "x"}, "junk", {"name": "0.9", "commit": {"web_url": "javascript:x"}}]
    fake_upstream.route(API + "?per_page=100", Answer(200, json.dumps(body)))
    assert [(v.version, v.commit_url) for v in run(fake_upstream, anitrack_http)] == [("1.0", None), ("0.9", None)]


def test_rate_limit(fake_upstream, anitrack_http):
    reset = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(minutes=5)
    fake_upstream.route(API + "?per_page=100", Answer(429, "Retry later", {
        "Retry-After": "300", "RateLimit-Reset": str(int(reset.timestamp()))}))
    with pytest.raises(RateLimitError) as caught:
        run(fake_upstream, anitrack_http)
    assert abs(caught.value.reset_time - reset) < timedelta(seconds=5)


def test_unreachable_instance(check_http):
    project = spec("http://127.0.0.1:9/group/project")
    with pytest.raises(BackendError):
        gl.GitLabBackend().get_versions(project, check_http)


# ---- a recorded answer of a real instance ----

def test_recorded_answer(replay_http):
    client = replay_http("anitya.tests.lib.backends.test_gitlab.GitlabBackendtests.test_get_versions")
    project = spec("https://gitlab.com/xonotic/xonotic", id=None)
    found = gl.GitLabBackend().get_versions(project, client.for_check())
    assert found[0].version == "xonotic-v0.8.2" and len(found) == 7
    assert client.misses == []
