"""The Gitea backend: URL building, a fake Gitea API, then the upstream recordings."""

import json

import pytest

import anitrack_backend_gitea
from anitrack_backend_gitea import GiteaBackend, api_url
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

TAGS = json.dumps([{"name": "1.1", "id": "abc"}, {"name": "1.0", "id": "def"}, {"name": "", "id": "x"}])
RELEASES = json.dumps([{"name": "v2.0", "tag_name": "v2.0"}, {"name": "", "tag_name": "v1.9"}])


def project(**fields):
    fields.setdefault("homepage", "https://codeberg.org/dnkl/foot")
    return ProjectSpec(id=None, name="foot", backend="Gitea", **fields)


def versions(anitrack_http, **fields):
    return GiteaBackend().get_versions(project(**fields), anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_gitea, "gitea").status == "loaded"
    backend = anitrack_plugins.backends.get("gitea")
    assert backend.name == "Gitea" and backend.shared_rate_limit is False and backend.default_regex is None


@pytest.mark.parametrize(("fields", "url"), [
    ({"homepage": "https://codeberg.org/dnkl/foot/"}, "https://codeberg.org/api/v1/repos/dnkl/foot/tags"),
    ({"homepage": "https://example.org", "version_url": "https://codeberg.org/dnkl/foot/"},
     "https://codeberg.org/api/v1/repos/dnkl/foot/tags"),
    ({"homepage": "https://codeberg.org/freedroid/freedroid-src.git"},
     "https://codeberg.org/api/v1/repos/freedroid/freedroid-src/tags"),
    ({"homepage": "https://forgejo.org/", "version_url": "https://codeberg.org/forgejo/forgejo", "releases_only": True},
     "https://codeberg.org/api/v1/repos/forgejo/forgejo/releases"),
    ({"homepage": "http://git.example:3000/o/r"}, "http://git.example:3000/api/v1/repos/o/r/tags"),
])
def test_api_url(fields, url):
    assert api_url(project(**fields)) == url


@pytest.mark.parametrize("homepage", [
    "https://gitea.com/project_with_malformed_url", "https://codeberg.org/a/b/src/branch/main", "codeberg.org/a/b",
    "https://codeberg.org//b", "",
])
def test_bad_url_set_up(homepage):
    with pytest.raises(BackendError, match="^Project foot was incorrectly set up"):
        api_url(project(homepage=homepage))


def test_tags(fake_upstream, anitrack_http):
    fake_upstream.route("/api/v1/repos/dnkl/foot/tags", Answer(200, TAGS, {"Content-Type": "application/json"}))
    assert versions(anitrack_http, homepage=fake_upstream.url("/dnkl/foot")) == ["1.1", "1.0"]
    assert "If-Modified-Since" in fake_upstream.requests[0].headers


def test_releases(fake_upstream, anitrack_http):
    fake_upstream.route("/api/v1/repos/dnkl/foot/releases", RELEASES)
    assert versions(anitrack_http, homepage=fake_upstream.url("/dnkl/foot"), releases_only=True) == ["v2.0", "v1.9"]


def test_empty_repository(fake_upstream, anitrack_http):
    fake_upstream.route("/api/v1/repos/dnkl/foot/tags", "[]")
    assert versions(anitrack_http, homepage=fake_upstream.url("/dnkl/foot")) == []


def test_unknown_repository(fake_upstream, anitrack_http):
    fake_upstream.route("/api/v1/repos/dnkl/foot/tags", Answer(404, '{"message": "GetUserByName"}'))
    with pytest.raises(BackendError, match='/repos/dnkl/foot/tags: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, homepage=fake_upstream.url("/dnkl/foot"))


@pytest.mark.parametrize("body", ['{"message": "not a list"}', "<html>", '["1.0"]'])
def test_malformed_answer(fake_upstream, anitrack_http, body):
    fake_upstream.route("/api/v1/repos/dnkl/foot/tags", body)
    with pytest.raises(BackendError):
        versions(anitrack_http, homepage=fake_upstream.url("/dnkl/foot"))


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route("/api/v1/repos/dnkl/foot/tags", Answer(429, "", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(anitrack_http, homepage=fake_upstream.url("/dnkl/foot"))


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "gitea--get-versions-project-invalid-owner-repo--invalid-project",
    "gitea--get-versions-project-version-url-only--forgejo",
    "gitea--get-version--invalid-url",
])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, GiteaBackend())
