"""The Go modules backend on its own: path escaping, a fake module proxy, the feed, the CLI."""

import json
from datetime import datetime, timezone

import pytest

import anitrack_backend_gomodules as go
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Go modules"
PATH = "/github.com/!burnt!sushi/toml/@v/list"


def spec(name="github.com/BurntSushi/toml", **fields):
    fields.setdefault("homepage", f"https://pkg.go.dev/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(go.GoModulesBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- registration, settings and URLs ----

def test_registers_backend_ecosystem_and_settings(register_plugin, anitrack_plugins):
    info = register_plugin(go, "gomodules")
    assert info.status == "loaded", info.error
    backend = anitrack_plugins.backends.get("go modules")
    assert backend.name == "Go modules" and backend.default_version_scheme == "Semantic"
    ecosystem = anitrack_plugins.ecosystems.for_backend("Go modules")
    assert ecosystem.name == "go" and ecosystem.default_version_scheme == "Semantic"
    assert ecosystem.default_version_filter == "+incompatible"
    assert anitrack_plugins.ecosystems.find("golang") is ecosystem


def test_proxy_comes_from_the_settings():
    backend = go.GoModulesBackend()
    backend.configure({"gomodules.proxy": "https://goproxy.example/", "gomodules.index": ""})
    assert backend.upstream_url(spec()) == "https://goproxy.example/github.com/!burnt!sushi/toml/@v/list"
    assert backend.feed_url == ""
    backend.configure({})
    assert backend.api_base == go.PROXY and backend.feed_url == go.INDEX
    assert go.check_http_url("ftp://x") and go.check_http_url("https://x") is None


def test_escaping_and_bad_paths():
    assert go.escape_path("github.com/Azure/azure-sdk-for-go") == "github.com/!azure/azure-sdk-for-go"
    assert go.GoModulesBackend().upstream_url(spec("golang.org/x/text")) == \
        "https://proxy.golang.org/golang.org/x/text/@v/list"
    for bad in ("", "a b", "../etc", "x//y", "/abs", "a/?q"):
        with pytest.raises(BackendError, match="not a Go module path"):
            go.GoModulesBackend().upstream_url(spec(bad))


def test_pseudo_versions():
    assert go.is_pseudo_version("v0.0.0-20191109021931-daa7c04131f5")
    assert go.is_pseudo_version("v1.2.4-0.20191109021931-daa7c04131f5")
    assert go.is_pseudo_version("v1.2.3-pre.0.20191109021931-daa7c04131f5+incompatible")
    assert not go.is_pseudo_version("v1.2.3")
    assert not go.is_pseudo_version("v2.0.0-rc.1+incompatible")


# ---- the fake proxy ----

def test_versions_without_pseudo_versions(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "v1.0.0\nv0.9.0\n\nv2.0.0+incompatible\nv0.0.0-20191109021931-daa7c04131f5\n"
                              "v1.1.0-rc.1\nv1.0.0\n")
    assert versions(fake_upstream, anitrack_http) == ["v1.0.0", "v0.9.0", "v2.0.0+incompatible", "v1.1.0-rc.1"]
    assert fake_upstream.requests[0].headers["User-Agent"] == "anitrack-tests"


def test_no_tagged_version(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "")
    assert versions(fake_upstream, anitrack_http) == []


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"g"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"g"'


def test_not_found(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(404, "not found: module github.com/BurntSushi/toml: no matching versions\n"))
    with pytest.raises(BackendError, match=r"^http://127\.0\.0\.1:\d+/github\.com/!burnt!sushi/toml/@v/list: "
                                           r'server responded with status 404 "Not Found" \(no such module on the '
                                           r"Go module proxy: not found: module github\.com/BurntSushi/toml: "
                                           r"no matching versions\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(410, ""))
    with pytest.raises(BackendError, match=r'status 410 "Gone" \(no such module on the Go module proxy\)$'):
        versions(fake_upstream, anitrack_http)


def test_rate_limited_and_server_error(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(429, "slow down", {"Retry-After": "30"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(502, "bad gateway"))
    with pytest.raises(BackendError, match='status 502 "Bad Gateway"$'):
        versions(fake_upstream, anitrack_http)


def test_malformed_body(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html><body>maintenance</body></html>")
    with pytest.raises(BackendError, match="unexpected answer from the Go module proxy"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, "v1.0.0\n1.1.0\n")
    with pytest.raises(BackendError, match="not a list of versions: '1.1.0'"):
        versions(fake_upstream, anitrack_http)


# ---- the feed (the module index) ----

def test_feed(fake_upstream, check_http, monkeypatch):
    lines = [{"Path": "golang.org/x/text", "Version": "v0.21.0", "Timestamp": "2024-12-04T12:00:00Z"},
             {"Path": "example.com/m", "Version": "v0.0.0-20241204120000-abcdefabcdef", "Timestamp": "x"},
             {"Path": "example.com/n"}, [1]]
    monkeypatch.setattr(go, "_now", lambda: datetime(2024, 12, 4, 12, 30, tzinfo=timezone.utc))
    fake_upstream.route("/index?since=2024-12-04T11%3A30%3A00Z&limit=2000",
                        "\n".join(json.dumps(line) for line in lines) + "\n")
    backend = backend_at(fake_upstream)
    backend.feed_url = fake_upstream.url("/index")
    entries = backend.recent_releases(check_http)
    assert [(e.name, e.version, e.homepage) for e in entries] == [
        ("golang.org/x/text", "v0.21.0", "https://pkg.go.dev/golang.org/x/text")]


def test_feed_malformed(fake_upstream, anitrack_http, monkeypatch):
    monkeypatch.setattr(go, "_now", lambda: datetime(2024, 12, 4, 12, 30, tzinfo=timezone.utc))
    fake_upstream.route("/index?since=2024-12-04T11%3A30%3A00Z&limit=2000", "<html>")
    backend = backend_at(fake_upstream)
    backend.feed_url = fake_upstream.url("/index")
    with pytest.raises(BackendError, match="line 1 is not JSON"):
        backend.recent_releases(anitrack_http.for_check())


def test_feed_errors_and_no_feed(fake_upstream, anitrack_http):
    backend = backend_at(fake_upstream)
    backend.feed_url = fake_upstream.url("/index")
    with pytest.raises(FetchError, match="status 404"):
        backend.recent_releases(anitrack_http.for_check())
    backend.feed_url = ""
    assert backend.recent_releases(anitrack_http.for_check()) == []


# ---- `anitrack check --dry-run` against the fake proxy ----

def test_dry_run(run_anitrack, fake_upstream, monkeypatch):
    fake_upstream.route(PATH, "v1.3.2\nv1.4.0-rc.1\nv2.0.0+incompatible\nv0.0.0-20191109021931-daa7c04131f5\n"
                              "v1.3.10\n")
    monkeypatch.setenv("ANITRACK_GOMODULES_PROXY", fake_upstream.base)
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "Go modules", "--name",
                                  "github.com/BurntSushi/toml", "--homepage",
                                  "https://pkg.go.dev/github.com/BurntSushi/toml", "--json")
    assert code == 0, err
    assert json.loads(out) == {"versions": ["1.4.0-rc.1", "1.3.10", "1.3.2"], "latest_version": "1.4.0-rc.1",
                               "stable_versions": ["1.3.10", "1.3.2"]}
