"""The GitHub backend on its own: repository names, and every answer of a fake GraphQL API on loopback."""

import json
import logging
from datetime import datetime, timedelta, timezone

import pytest

import anitrack_backend_github as gh
from anitrack_core.check.runner import Checker
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.config import load_settings
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.runtime import Runtime
from anitrack_core.testing_upstream import Answer

TOKEN = "ghp-s3cret-t0ken"


def spec(version_url=None, homepage="https://github.com/fedora-infra/fedocal", *, id=1, releases_only=False,
         cursor=None, name="fedocal"):
    return ProjectSpec(id=id, name=name, homepage=homepage, backend="GitHub", version_url=version_url,
                       releases_only=releases_only, latest_version_cursor=cursor)


@pytest.fixture
def backend(fake_upstream):
    made = gh.GitHubBackend()
    made.configure({"github.token": TOKEN, "github.api_url": fake_upstream.url("/graphql")})
    return made


def edge(name, cursor=None, commit=None):
    return {"cursor": cursor or f"c-{name}",
            "node": {"name": name, "target": {"commitUrl": commit or f"https://github.com/o/r/commit/{name}"}}}


def answer(edges, *, total=None, has_older=False, start=None, kind="refs", remaining=4000, page_info=True,
           headers=None):
    connection = {"totalCount": len(edges) if total is None else total, "edges": edges}
    if page_info:
        connection["pageInfo"] = {"hasPreviousPage": has_older, "startCursor": start}
    body = {"data": {"repository": {kind: connection},
                     "rateLimit": {"limit": 5000, "remaining": remaining, "resetAt": "2030-01-01T00:00:00Z"}}}
    return Answer(200, json.dumps(body), {"Content-Type": "application/json", **(headers or {})})


def paged(pages):
    """A GraphQL route answering by the ``before`` variable: {None: answer, "cursor": answer, ...}."""
    def route(request):
        variables = json.loads(request.body)["variables"]
        return pages.get(variables["before"], Answer(500, "unexpected page"))
    return route


def sent(fake_upstream):
    return [json.loads(r.body) for r in fake_upstream.requests]


# ---- registration and settings ----

def test_registers_backend_and_settings(register_plugin, anitrack_plugins):
    info = register_plugin(gh, "github")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("github") is gh.GitHubBackend
    assert {"github.token", "github.api_url", "github.max_pages"} <= set(info.settings)
    assert anitrack_plugins.settings_spec.get("github.token").secret
    assert gh.GitHubBackend.shared_rate_limit is True


def test_checker_hands_the_settings_over(register_plugin, anitrack_plugins, tmp_path, fake_upstream, anitrack_http):
    register_plugin(gh, "github")
    settings = load_settings(anitrack_plugins.settings_spec, {
        "ANITRACK_DATA_DIR": str(tmp_path), "ANITRACK_GITHUB_TOKEN": TOKEN,
        "ANITRACK_GITHUB_API_URL": fake_upstream.url("/graphql")}, file_values={})
    assert ("github.token", "********", "ANITRACK_GITHUB_TOKEN") in settings.public_items()
    fake_upstream.route("/graphql", answer([edge("1.0"), edge("1.1")]))
    checker = Checker(Runtime(settings, anitrack_plugins), http=anitrack_http)
    assert TOKEN not in repr(checker.backend("GitHub"))
    outcome = checker.fetch(spec("fedora-infra/fedocal"))
    assert outcome.error is None
    assert [v.version for v in outcome.versions] == ["1.1", "1.0"]
    assert fake_upstream.requests[0].headers["Authorization"] == f"bearer {TOKEN}"


# ---- which repository ----

@pytest.mark.parametrize("version_url, homepage, releases_only, page", [
    ("test/test", "https://example.org", False, "https://github.com/test/test/tags"),
    ("test/test/", "https://example.org", False, "https://github.com/test/test/tags"),
    (None, "https://github.com/test/test", False, "https://github.com/test/test/tags"),
    (None, "https://github.com/test/test/", False, "https://github.com/test/test/tags"),
    (None, "https://example.org", False, ""),
    ("test/test", "https://example.org", True, "https://github.com/test/test/releases"),
    ("fedora-infra/tags", "https://example.org", False, "https://github.com/fedora-infra/tags/tags"),
    ("https://github.com/o/r.git", "https://example.org", False, "https://github.com/o/r/tags"),
    ("github.com/o/r", "https://example.org", False, "https://github.com/o/r/tags"),
    (None, "http://www.GitHub.com/o/r/releases/tag/v1", False, "https://github.com/o/r/tags"),
    (None, "https://github.com/o", False, ""),
    (None, "https://gitlab.com/o/r", False, ""),
    ("o/r/extra", "https://github.com/x/y", False, ""),
    ("o r/x", "https://example.org", False, ""),
    ("-o/r", "https://example.org", False, ""),
])
def test_versions_page_url(version_url, homepage, releases_only, page):
    project = spec(version_url, homepage, releases_only=releases_only)
    assert gh.versions_page_url(project) == page


def test_version_url_wins_over_homepage():
    assert gh.repository_of(spec("a/b", "https://github.com/c/d")) == ("a", "b")


def test_incorrectly_set_up(backend, check_http, fake_upstream):
    with pytest.raises(BackendError, match="incorrectly set up"):
        backend.get_versions(spec(None, "https://example.org"), check_http)
    assert fake_upstream.requests == []


# ---- the token ----

def test_no_token_is_a_clear_error_before_any_request(anitrack_http, fake_upstream):
    backend = gh.GitHubBackend()
    backend.configure({"github.token": "  ", "github.api_url": fake_upstream.url("/graphql")})
    with pytest.raises(BackendError, match="no GitHub token configured.*github.token"):
        backend.get_versions(spec("o/r"), anitrack_http.for_check())
    assert fake_upstream.requests == []
    with pytest.raises(BackendError, match="no GitHub token"):  # never configured at all
        gh.GitHubBackend().get_versions(spec("o/r"), anitrack_http.for_check())


def test_query_token_and_variables(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", answer([edge("v1.0"), edge("v1.1")]))
    found = backend.get_versions(spec("fedora-infra/fedocal"), check_http)
    assert [v.version for v in found] == ["v1.1", "v1.0"]
    request = fake_upstream.requests[0]
    assert request.method == "POST"
    assert request.headers["Authorization"] == f"bearer {TOKEN}"
    body = json.loads(request.body)
    assert body["variables"] == {"owner": "fedora-infra", "name": "fedocal", "count": 100, "before": None}
    assert "refs(refPrefix: \"refs/tags/\"" in body["query"] and "TAG_COMMIT_DATE" in body["query"]


# ---- versions, commit URLs, cursors ----

def test_commit_url_of_annotated_tags_is_the_commit(backend, check_http, fake_upstream):
    annotated = {"cursor": "c2", "node": {"name": "2.0", "target": {
        "commitUrl": "https://github.com/o/r/commit/tagobject", "target": {"commitUrl": "https://github.com/o/r/commit/abc"}}}}
    fake_upstream.route("/graphql", answer([edge("1.0", commit="https://github.com/o/r/commit/111"), annotated]))
    found = backend.get_versions(spec("o/r"), check_http)
    assert [(v.version, v.commit_url) for v in found] == [
        ("2.0", "https://github.com/o/r/commit/abc"), ("1.0", "https://github.com/o/r/commit/111")]
    assert found[0].cursor == "github/1 tags o/r 2.0"


def test_releases_only_reads_tag_names_and_skips_releases_without_tag(backend, check_http, fake_upstream):
    edges = [{"cursor": "a", "node": {"tag": {"name": "0.10.0", "target": {"commitUrl": "https://c/1"}}}},
             {"cursor": "b", "node": {"tag": None}},
             {"cursor": "c", "node": {"tag": {"name": "0.11.0", "target": {"commitUrl": "https://c/2"}}}}]
    fake_upstream.route("/graphql", answer(edges, kind="releases"))
    found = backend.get_versions(spec("o/r", releases_only=True), check_http)
    assert [v.version for v in found] == ["0.11.0", "0.10.0"]
    assert found[0].cursor == "github/1 releases o/r 0.11.0"
    assert "releases(orderBy: {field: CREATED_AT" in sent(fake_upstream)[0]["query"]


def test_no_tags_at_all(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", answer([]))
    with pytest.raises(BackendError, match="No upstream version found"):
        backend.get_versions(spec("o/r"), check_http)


# ---- pagination ----

def three_pages():
    return paged({
        None: answer([edge("5"), edge("6")], total=6, has_older=True, start="p3"),
        "p3": answer([edge("3"), edge("4")], total=6, has_older=True, start="p2"),
        "p2": answer([edge("1"), edge("2")], total=6, has_older=False, start="p1"),
    })


def test_first_check_reads_every_page(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", three_pages())
    found = backend.get_versions(spec("o/r"), check_http)
    assert [v.version for v in found] == ["6", "5", "4", "3", "2", "1"]
    assert [b["variables"]["before"] for b in sent(fake_upstream)] == [None, "p3", "p2"]


def test_later_checks_stop_at_the_known_version(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", three_pages())
    found = backend.get_versions(spec("o/r", cursor="github/1 tags o/r 4"), check_http)
    assert [v.version for v in found] == ["6", "5", "4", "3"]
    assert len(fake_upstream.requests) == 2


def test_known_version_of_another_repository_or_kind_is_ignored(backend, anitrack_http, fake_upstream):
    fake_upstream.route("/graphql", three_pages())
    backend.get_versions(spec("o/r", cursor="github/1 tags other/repo 6"), anitrack_http.for_check())
    backend.get_versions(spec("o/r", cursor="github/1 releases o/r 6"), anitrack_http.for_check())
    backend.get_versions(spec("o/r", cursor="garbage"), anitrack_http.for_check())
    assert len(fake_upstream.requests) == 9
    assert gh.known_tag("github/1 tags O/R 6", "tags", "o", "r") == "6"  # GitHub names ignore case


def test_temporary_project_reads_the_newest_page_only(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", three_pages())
    found = backend.get_versions(spec("o/r", id=None), check_http)
    assert [v.version for v in found] == ["6", "5"]
    assert len(fake_upstream.requests) == 1


def test_answers_without_page_info_are_paged_by_total_count(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", paged({
        None: answer([edge("3", "c3"), edge("4", "c4")], total=4, page_info=False),
        "c3": answer([edge("1", "c1"), edge("2", "c2")], total=4, page_info=False),
    }))
    found = backend.get_versions(spec("o/r"), check_http)
    assert [v.version for v in found] == ["4", "3", "2", "1"]
    assert len(fake_upstream.requests) == 2


def test_page_limit(backend, check_http, fake_upstream, caplog):
    backend.max_pages = 2
    fake_upstream.route("/graphql", three_pages())
    with caplog.at_level(logging.WARNING):
        found = backend.get_versions(spec("o/r"), check_http)
    assert [v.version for v in found] == ["6", "5", "4", "3"]
    assert "github.max_pages" in caplog.text


def test_a_cursor_that_does_not_move_ends_the_pagination(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", paged({
        None: answer([edge("2")], total=9, has_older=True, start="same"),
        "same": answer([edge("1")], total=9, has_older=True, start="same"),
    }))
    assert [v.version for v in backend.get_versions(spec("o/r"), check_http)] == ["2", "1"]
    assert len(fake_upstream.requests) == 2


def test_a_failing_later_page_fails_the_check(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", paged({None: answer([edge("2")], has_older=True, start="p2")}))
    with pytest.raises(BackendError, match="status 500"):
        backend.get_versions(spec("o/r"), check_http)


# ---- errors ----

def test_graphql_errors(backend, check_http, fake_upstream):
    body = {"data": {"repository": None}, "errors": [
        {"type": "NOT_FOUND", "path": ["repository"], "message": "Could not resolve to a Repository with the name 'bar'."}]}
    fake_upstream.route("/graphql", Answer(200, json.dumps(body), {"Content-Type": "application/json"}))
    with pytest.raises(BackendError, match="GitHub answered with errors: NOT_FOUND: Could not resolve") as caught:
        backend.get_versions(spec("foobar/bar", name="foobar"), check_http)
    assert not isinstance(caught.value, RateLimitError)


def test_missing_repository_without_errors(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", Answer(200, '{"data": {"repository": null}}'))
    with pytest.raises(BackendError, match="no repository o/r"):
        backend.get_versions(spec("o/r"), check_http)


@pytest.mark.parametrize("body", ["not json", "[1, 2]", '{"data": {"repository": {"refs": 3}}}'])
def test_malformed_answers(backend, check_http, fake_upstream, body):
    fake_upstream.route("/graphql", Answer(200, body))
    with pytest.raises(BackendError, match="fedocal: "):
        backend.get_versions(spec("o/r"), check_http)


def test_unauthorized_is_an_error_not_a_rate_limit_and_hides_the_token(backend, check_http, fake_upstream, caplog):
    fake_upstream.route("/graphql", Answer(401, '{"message": "Bad credentials"}', {
        "Content-Type": "application/json", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2147483647"}))
    with caplog.at_level(logging.DEBUG), pytest.raises(BackendError) as caught:
        backend.get_versions(spec("o/r"), check_http)
    assert not isinstance(caught.value, RateLimitError)
    assert 'status 401 "Unauthorized" (Bad credentials; check the token (github.token))' in str(caught.value)
    assert TOKEN not in str(caught.value) and TOKEN not in caplog.text


def test_server_error(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", Answer(502, "<html>bad gateway</html>"))
    with pytest.raises(BackendError, match='status 502 "Bad Gateway"'):
        backend.get_versions(spec("o/r"), check_http)


def _reset_in(minutes):
    return datetime.now(timezone.utc).replace(microsecond=0) + timedelta(minutes=minutes)


def test_403_with_no_requests_left_is_a_rate_limit_until_the_reset(backend, check_http, fake_upstream):
    reset = _reset_in(30)
    fake_upstream.route("/graphql", Answer(403, '{"message": "API rate limit exceeded"}', {
        "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset.timestamp()))}))
    with pytest.raises(RateLimitError) as caught:
        backend.get_versions(spec("o/r"), check_http)
    assert caught.value.reset_time == reset
    assert "Rate limit was reached" in str(caught.value)


def test_secondary_rate_limit_waits_for_retry_after(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", Answer(403, '{"message": "You have exceeded a secondary rate limit"}', {
        "Retry-After": "120", "X-RateLimit-Remaining": "4000", "X-RateLimit-Reset": "2147483647"}))
    with pytest.raises(RateLimitError) as caught:
        backend.get_versions(spec("o/r"), check_http)
    waited = caught.value.reset_time - datetime.now(timezone.utc)
    assert timedelta(seconds=100) < waited <= timedelta(seconds=120)


def test_429_is_a_rate_limit(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", Answer(429, "slow down"))
    with pytest.raises(RateLimitError):
        backend.get_versions(spec("o/r"), check_http)


def test_other_403_is_an_error(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", Answer(403, '{"message": "Resource not accessible by integration"}'))
    with pytest.raises(BackendError, match="Resource not accessible") as caught:
        backend.get_versions(spec("o/r"), check_http)
    assert not isinstance(caught.value, RateLimitError)


def test_rate_limited_graphql_error_uses_reset_at(backend, check_http, fake_upstream):
    reset = _reset_in(20)
    body = {"data": {"rateLimit": {"remaining": 0, "resetAt": reset.isoformat().replace("+00:00", "Z")}},
            "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}
    fake_upstream.route("/graphql", Answer(200, json.dumps(body)))
    with pytest.raises(RateLimitError) as caught:
        backend.get_versions(spec("o/r"), check_http)
    assert caught.value.reset_time == reset


def test_no_requests_left_with_pages_to_go_is_a_rate_limit(backend, check_http, fake_upstream):
    reset = _reset_in(10)
    fake_upstream.route("/graphql", answer([edge("2")], has_older=True, start="p2", remaining=0,
                                           headers={"X-RateLimit-Reset": str(int(reset.timestamp()))}))
    with pytest.raises(RateLimitError) as caught:
        backend.get_versions(spec("o/r"), check_http)
    assert caught.value.reset_time == reset
    assert len(fake_upstream.requests) == 1


def test_no_requests_left_on_the_last_page_is_fine(backend, check_http, fake_upstream):
    fake_upstream.route("/graphql", answer([edge("2")], remaining=0))
    assert [v.version for v in backend.get_versions(spec("o/r"), check_http)] == ["2"]


def test_unreachable_api(check_http):
    backend = gh.GitHubBackend()
    backend.configure({"github.token": TOKEN, "github.api_url": "http://127.0.0.1:9/graphql"})
    with pytest.raises(BackendError):
        backend.get_versions(spec("o/r"), check_http)


# ---- a recorded answer of the real API ----

def test_recorded_answer(replay_http):
    client = replay_http("anitya.tests.lib.backends.test_github.GithubBackendtests.test_get_versions_valid_with_version_url")
    backend = gh.GitHubBackend()
    backend.configure({"github.token": TOKEN})
    found = backend.get_versions(spec("fedora-infra/fedocal"), client.for_check())
    assert len(found) == 38 and client.misses == []
    first = next(v for v in found if v.version == "v0.1.0")
    assert first.commit_url == "https://github.com/fedora-infra/fedocal/commit/baf85613ab08c4fd232e94c0a6f7e7fd2f7f98f6"
    assert client.requests == [("POST", "https://api.github.com/graphql")]
