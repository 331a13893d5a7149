"""The Homebrew backend on its own: URLs, a fake formulae API, the CLI."""

import json

import pytest

import anitrack_backend_homebrew as homebrew
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Homebrew"
PATH = "/api/formula/wget.json"


def spec(name="wget", **fields):
    fields.setdefault("homepage", f"https://formulae.brew.sh/formula/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(homebrew.HomebrewBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


def formula(stable="1.24.5", revision=0):
    return json.dumps({"name": "wget", "full_name": "wget", "revision": revision,
                       "versions": {"stable": stable, "head": "HEAD", "bottle": True}})


def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(homebrew, "homebrew")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("homebrew").name == "Homebrew"
    ecosystem = anitrack_plugins.ecosystems.for_backend("Homebrew")
    assert ecosystem.name == "homebrew" and anitrack_plugins.ecosystems.find("brew") is ecosystem


def test_urls():
    backend = homebrew.HomebrewBackend()
    assert backend.upstream_url(spec(version_url="x")) == "https://formulae.brew.sh/api/formula/wget.json"
    assert backend.upstream_url(spec("python@3.12")) == "https://formulae.brew.sh/api/formula/python@3.12.json"
    for bad in ("", "user/tap/foo", "..", "a b"):
        with pytest.raises(BackendError, match="is not a formula of homebrew/core"):
            backend.upstream_url(spec(bad))


def test_the_stable_version(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, formula("1.24.5", revision=2))
    assert versions(fake_upstream, anitrack_http) == ["1.24.5"]
    fake_upstream.route(PATH, json.dumps({"name": "wget", "versions": {"stable": None, "head": "HEAD"}}))
    assert versions(fake_upstream, anitrack_http) == []


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"b"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"b"'


def test_not_found(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/api/formula/wget\.json: server responded with '
                                           r'status 404 "Not Found" \(no such formula in Homebrew\)$'):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"name": "wget", "versions": "1.24.5"}))
    with pytest.raises(BackendError, match="no versions"):
        versions(fake_upstream, anitrack_http)


def test_dry_run(run_anitrack, fake_upstream, monkeypatch):
    fake_upstream.route(PATH, formula("1.24.5"))
    monkeypatch.setattr(homebrew.HomebrewBackend, "api_base", fake_upstream.base)
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "Homebrew", "--name", "wget",
                                  "--homepage", "https://formulae.brew.sh/formula/wget", "--json")
    assert code == 0, err
    assert json.loads(out) == {"versions": ["1.24.5"], "latest_version": "1.24.5", "stable_versions": ["1.24.5"]}
