"""The conda-forge backend on its own: URLs, a fake anaconda.org API, the CLI."""

import json

import pytest

import anitrack_backend_condaforge as condaforge
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "conda-forge"
PATH = "/package/conda-forge/numpy"


def spec(name="numpy", **fields):
    fields.setdefault("homepage", f"https://anaconda.org/conda-forge/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(condaforge.CondaForgeBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(condaforge, "condaforge")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("Conda-Forge").name == "conda-forge"
    ecosystem = anitrack_plugins.ecosystems.for_backend("conda-forge")
    assert ecosystem.name == "conda-forge" and anitrack_plugins.ecosystems.find("conda") is ecosystem


def test_url_comes_from_the_name_only():
    assert condaforge.CondaForgeBackend().upstream_url(spec(version_url="x")) == \
        "https://api.anaconda.org/package/conda-forge/numpy"


def test_versions(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"name": "numpy", "versions": ["1.26.4", "2.0.0", "2.1.0rc1", None],
                                          "latest_version": "2.0.0", "files": [{"version": "2.0.0"}]}))
    assert versions(fake_upstream, anitrack_http) == ["1.26.4", "2.0.0", "2.1.0rc1"]


def test_only_the_latest_version(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, json.dumps({"name": "numpy", "latest_version": "2.0.0"}))
    assert versions(fake_upstream, anitrack_http) == ["2.0.0"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"c"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"c"'


def test_not_found(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, json.dumps({"error": "\"conda-forge/numpy\" could not be found"})))
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/package/conda-forge/numpy: server responded '
                                           r'with status 404 "Not Found" \("conda-forge/numpy" could not be found\)$'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(404, "<html>"))
    with pytest.raises(BackendError, match=r"\(no such package on conda-forge\)$"):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match="not valid JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, "[]")
    with pytest.raises(BackendError, match="not a JSON object"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"name": "numpy", "versions": "2.0.0"}))
    with pytest.raises(BackendError, match="no list of versions"):
        versions(fake_upstream, anitrack_http)


def test_dry_run(run_anitrack, fake_upstream, monkeypatch):
    fake_upstream.route(PATH, json.dumps({"versions": ["1.26.4", "2.0.0", "1.9.3"]}))
    monkeypatch.setattr(condaforge.CondaForgeBackend, "api_base", fake_upstream.base)
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "conda-forge", "--name", "numpy",
                                  "--homepage", "https://anaconda.org/conda-forge/numpy", "--json")
    assert code == 0, err
    assert json.loads(out)["versions"] == ["2.0.0", "1.26.4", "1.9.3"]
