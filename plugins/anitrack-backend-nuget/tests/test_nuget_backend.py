"""The NuGet backend on its own: URLs, a fake flat container, the CLI."""

import json

import pytest

import anitrack_backend_nuget as nuget
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "NuGet"
PATH = "/v3-flatcontainer/newtonsoft.json/index.json"


def spec(name="Newtonsoft.Json", **fields):
    fields.setdefault("homepage", f"https://www.nuget.org/packages/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(nuget.NuGetBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(nuget, "nuget")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("nuget").name == "NuGet"
    assert anitrack_plugins.ecosystems.for_backend("NuGet").name == "nuget"


def test_url_comes_from_the_lower_case_id():
    backend = nuget.NuGetBackend()
    assert backend.upstream_url(spec(version_url="https://example.org/")) == \
        "https://api.nuget.org/v3-flatcontainer/newtonsoft.json/index.json"
    for bad in ("", "a/b", "a b", "x" * 101):
        with pytest.raises(BackendError, match="is not a NuGet package id"):
            backend.upstream_url(spec(bad))


def test_versions(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"versions": ["12.0.3", "13.0.1", "13.0.4-beta1", 7, ""]}))
    assert versions(fake_upstream, anitrack_http) == ["12.0.3", "13.0.1", "13.0.4-beta1"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"n"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"n"'


def test_not_found(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, "<Error><Code>BlobNotFound</Code></Error>"))
    with pytest.raises(BackendError, match=r"^http://127\.0\.0\.1:\d+/v3-flatcontainer/newtonsoft\.json/index\.json: "
                                           r'server responded with status 404 "Not Found" \(no such package on NuGet\)$'):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"versions": "13.0.1"}))
    with pytest.raises(BackendError, match="no list of versions"):
        versions(fake_upstream, anitrack_http)


def test_dry_run(run_anitrack, fake_upstream, monkeypatch):
    fake_upstream.route(PATH, json.dumps({"versions": ["12.0.3", "13.0.1", "13.0.3"]}))
    monkeypatch.setattr(nuget.NuGetBackend, "api_base", fake_upstream.url("/v3-flatcontainer"))
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "NuGet", "--name", "Newtonsoft.Json",
                                  "--homepage", "https://www.nuget.org/packages/Newtonsoft.Json", "--json")
    assert code == 0, err
    assert json.loads(out)["latest_version"] == "13.0.3"
