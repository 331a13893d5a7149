"""The pagure backend: URL building, a fake pagure API, then the upstream recordings."""

import pytest

import anitrack_backend_pagure
from anitrack_backend_pagure import PagureBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer


@pytest.fixture
def site(fake_upstream, monkeypatch):
    monkeypatch.setattr(PagureBackend, "site", fake_upstream.base)
    return fake_upstream


def versions(anitrack_http, name="pagure"):
    spec = ProjectSpec(id=None, name=name, homepage=f"https://pagure.io/{name}", backend="pagure")
    return PagureBackend().get_versions(spec, anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_pagure, "pagure").status == "loaded"
    backend = anitrack_plugins.backends.get("Pagure")
    assert backend.name == "pagure" and backend.default_regex is None and backend.required_version_url is False


@pytest.mark.parametrize(("name", "url"), [
    ("pagure", "https://pagure.io/api/0/pagure/git/tags"),
    ("flask-multistatic", "https://pagure.io/api/0/flask-multistatic/git/tags"),
    ("fedora-infra/ansible", "https://pagure.io/api/0/fedora-infra/ansible/git/tags"),
])
def test_tags_url(name, url):
    assert PagureBackend.tags_url(name) == url


def test_tags(site, anitrack_http):
    site.route("/api/0/pagure/git/tags", Answer(200, '{"tags": ["0.1", "0.1.1"], "total_tags": 2}',
                                                {"Content-Type": "application/json"}))
    assert versions(anitrack_http) == ["0.1", "0.1.1"]
    assert "If-Modified-Since" in site.requests[0].headers


@pytest.mark.parametrize("body", ['{"tags": []}', '{"total_tags": 0}'])
def test_no_tag(site, anitrack_http, body):
    site.route("/api/0/pagure/git/tags", body)
    assert versions(anitrack_http) == []


@pytest.mark.parametrize("body", ['["0.1"]', '{"tags": "0.1"}'])
def test_malformed_answer(site, anitrack_http, body):
    site.route("/api/0/pagure/git/tags", body)
    with pytest.raises(BackendError, match="did not answer"):
        versions(anitrack_http)


def test_not_json(site, anitrack_http):
    site.route("/api/0/pagure/git/tags", "<html>")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(anitrack_http)


def test_unknown_project(site, anitrack_http):
    site.route("/api/0/foo/git/tags", Answer(404, '{"error": "Project not found", "error_code": "ENOPROJECT"}'))
    expected = r'/api/0/foo/git/tags: server responded with status 404 "Not Found" \(Project not found\)$'
    with pytest.raises(BackendError, match=expected):
        versions(anitrack_http, name="foo")


def test_rate_limited(site, anitrack_http):
    site.route("/api/0/pagure/git/tags", Answer(429, "", {"Retry-After": "60"}))
    with pytest.raises(RateLimitError):
        versions(anitrack_http)


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["pagure--pagure-get-versions--pagure"])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, PagureBackend())
