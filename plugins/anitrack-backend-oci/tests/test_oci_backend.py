"""The Container registry backend on its own: references, a fake registry with tokens and pages, the CLI."""

import json

import pytest

import anitrack_backend_oci as oci
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Container registry"
PATH = "/v2/ns/app/tags/list?n=1000"
TOKEN_PATH = "/token?service=registry.example&scope=repository%3Ans%2Fapp%3Apull"


def spec(fake_upstream=None, name="registry.example/ns/app", **fields):
    fields.setdefault("homepage", "https://registry.example/ns/app")
    if fake_upstream is not None:
        fields.setdefault("version_url", fake_upstream.base)
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def versions(fake_upstream, anitrack_http, project=None):
    return oci.ContainerRegistryBackend().get_versions(project or spec(fake_upstream), anitrack_http.for_check())


def tags(*names, name="ns/app"):
    return json.dumps({"name": name, "tags": list(names)})


def with_token(fake_upstream, answer, token="t0k"):
    """The registry at PATH wants the anonymous token flow, then gives *answer*."""
    def registry(request):
        if request.headers.get("Authorization") != f"Bearer {token}":
            return Answer(401, json.dumps({"errors": [{"code": "UNAUTHORIZED", "message": "authentication required"}]}),
                          {"WWW-Authenticate": f'Bearer realm="{fake_upstream.url("/token")}",'
                                               'service="registry.example",scope="repository:ns/app:pull"'})
        return answer
    fake_upstream.route(PATH, registry)
    fake_upstream.route(TOKEN_PATH, json.dumps({"token": token, "expires_in": 300}))


# ---- registration, references and URLs ----

def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(oci, "oci")
    assert info.status == "loaded", info.error
    backend = anitrack_plugins.backends.get("container registry")
    assert backend.name == "Container registry" and backend.default_version_filter == oci.DEFAULT_TAG_FILTER
    assert not backend.shared_rate_limit
    ecosystem = anitrack_plugins.ecosystems.for_backend("Container registry")
    assert ecosystem.name == "oci" and anitrack_plugins.ecosystems.find("docker") is ecosystem


@pytest.mark.parametrize("name, expected", [
    ("docker.io/library/nginx", ("docker.io", "library/nginx")),
    ("nginx", ("docker.io", "library/nginx")),
    ("index.docker.io/nginx", ("docker.io", "library/nginx")),
    ("grafana/grafana", ("docker.io", "grafana/grafana")),
    ("ghcr.io/home-assistant/home-assistant", ("ghcr.io", "home-assistant/home-assistant")),
    ("quay.io/prometheus/prometheus", ("quay.io", "prometheus/prometheus")),
    ("registry.example:5000/a/b/c", ("registry.example:5000", "a/b/c")),
    ("localhost/app", ("localhost", "app")),
])
def test_references(name, expected):
    assert oci.parse_reference(name) == expected


@pytest.mark.parametrize("name", ["", "nginx:1.27", "ghcr.io/o/i@sha256:abc", "ghcr.io/Owner/Image", "a//b",
                                  "ghcr.io/"])
def test_bad_references(name):
    with pytest.raises(BackendError, match="image"):
        oci.parse_reference(name)


def test_urls():
    backend = oci.ContainerRegistryBackend()
    assert backend.upstream_url(spec(name="docker.io/library/nginx")) == \
        "https://registry-1.docker.io/v2/library/nginx/tags/list?n=1000"
    assert backend.upstream_url(spec(name="ghcr.io/o/i")) == "https://ghcr.io/v2/o/i/tags/list?n=1000"
    assert backend.upstream_url(spec(name="r.example/o/i", version_url="https://api.r.example/")) == \
        "https://api.r.example/v2/o/i/tags/list?n=1000"
    with pytest.raises(BackendError, match="version_url must be the registry's http"):
        backend.upstream_url(spec(version_url="r.example"))


def test_helpers():
    assert oci.challenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",'
                         'scope="repository:library/nginx:pull"') == ("bearer", {
                             "realm": "https://auth.docker.io/token", "service": "registry.docker.io",
                             "scope": "repository:library/nginx:pull"})
    assert oci.challenge('Basic realm=registry') == ("basic", {"realm": "registry"})
    assert oci.next_page('</v2/x/tags/list?n=2&last=b>; rel="next"', "https://r.example/v2/x/tags/list?n=2") == \
        "https://r.example/v2/x/tags/list?n=2&last=b"
    assert oci.next_page('<https://r.example/p>; rel="prev"', "https://r.example/") is None
    assert oci.next_page(None, "https://r.example/") is None


# ---- the fake registry ----

def test_tags_without_a_token(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, tags("1.0", "1.1", "latest", "1.0"))
    assert versions(fake_upstream, anitrack_http) == ["1.0", "1.1", "latest"]
    assert "Authorization" not in fake_upstream.requests[0].headers


def test_anonymous_token_flow(fake_upstream, anitrack_http):
    with_token(fake_upstream, Answer(200, tags("1.0", "2.0")))
    assert versions(fake_upstream, anitrack_http) == ["1.0", "2.0"]
    assert [r.path for r in fake_upstream.requests] == [PATH, TOKEN_PATH, PATH]


def test_token_as_access_token_and_token_errors(fake_upstream, anitrack_http):
    with_token(fake_upstream, Answer(200, tags("3.0")))
    fake_upstream.route(TOKEN_PATH, json.dumps({"access_token": "t0k"}))
    assert versions(fake_upstream, anitrack_http) == ["3.0"]
    fake_upstream.route(TOKEN_PATH, json.dumps({"nothing": True}))
    with pytest.raises(BackendError, match="token service \\(no token\\)"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(TOKEN_PATH, Answer(429, "", {"Retry-After": "60"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_pages_follow_the_link_header(fake_upstream, anitrack_http):
    with_token(fake_upstream, Answer(200, tags("1", "2"), {"Link": '</v2/ns/app/tags/list?n=2&last=2>; rel="next"'}))
    fake_upstream.route("/v2/ns/app/tags/list?n=2&last=2",
                        lambda request: Answer(200, tags("3")) if request.headers.get("Authorization") == "Bearer t0k"
                        else Answer(401))
    assert versions(fake_upstream, anitrack_http) == ["1", "2", "3"]
    last = fake_upstream.requests[-1]
    assert "If-Modified-Since" not in last.headers and "If-None-Match" not in last.headers


def test_the_token_is_not_sent_to_another_host(fake_upstream, anitrack_http):
    other = f"http://localhost:{fake_upstream.server.server_address[1]}"
    with_token(fake_upstream, Answer(200, tags("1"), {"Link": f'<{other}/v2/ns/app/tags/list?last=1>; rel="next"'}))
    fake_upstream.route("/v2/ns/app/tags/list?last=1", Answer(200, tags("2")))
    assert versions(fake_upstream, anitrack_http) == ["1", "2"]
    assert "Authorization" not in fake_upstream.requests[-1].headers
    assert fake_upstream.requests[-2].headers["Authorization"] == "Bearer t0k"


def test_pages_are_bounded(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(200, tags("1"), {"Link": '</v2/ns/app/tags/list?last=1>; rel="next"'}))
    fake_upstream.route("/v2/ns/app/tags/list?last=1",
                        Answer(200, tags("2"), {"Link": '</v2/ns/app/tags/list?last=1>; rel="next"'}))
    assert versions(fake_upstream, anitrack_http) == ["1", "2"]
    assert len(fake_upstream.requests) == oci.MAX_PAGES


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        oci.ContainerRegistryBackend().get_versions(spec(fake_upstream),
                                                    anitrack_http.for_check(validators=Validators(etag='"o"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"o"'


def test_not_found(fake_upstream, anitrack_http):
    with_token(fake_upstream, Answer(404, json.dumps({"errors": [
        {"code": "NAME_UNKNOWN", "message": "repository name not known to registry"}]})))
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/v2/ns/app/tags/list\?n=1000: server responded '
                                           r'with status 404 "Not Found" \(no such image on the registry; '
                                           r"NAME_UNKNOWN: repository name not known to registry\)$"):
        versions(fake_upstream, anitrack_http)


def test_refused_after_the_token_and_password_registries(fake_upstream, anitrack_http):
    with_token(fake_upstream, Answer(401, json.dumps({"errors": [{"code": "UNAUTHORIZED", "message": "no"}]})))
    with pytest.raises(BackendError, match=r'status 401 "Unauthorized" \(UNAUTHORIZED: no; the image does not '
                                           r"exist or is private\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(401, "", {"WWW-Authenticate": 'Basic realm="Registry"'}))
    with pytest.raises(BackendError, match="asks for a password: private images are not supported"):
        versions(fake_upstream, anitrack_http)


def test_rate_limited(fake_upstream, anitrack_http):
    with_token(fake_upstream, Answer(429, json.dumps({"errors": [{"code": "TOOMANYREQUESTS"}]}),
                                     {"Retry-After": "120"}))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_malformed_bodies(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, "<html>")
    with pytest.raises(BackendError, match="not JSON"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"tags": "1.0"}))
    with pytest.raises(BackendError, match="no list of tags"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, json.dumps({"name": "ns/app", "tags": None}))
    assert versions(fake_upstream, anitrack_http) == []


# ---- `anitrack check --dry-run` against the fake registry ----

def test_dry_run_hides_tags_that_are_no_versions(run_anitrack, fake_upstream):
    with_token(fake_upstream, Answer(200, tags("1.26.0", "1.27.1", "latest", "sha-0a1b2c3", "1.27.1-arm64",
                                               "sha256-0123.sig", "1.27.1-alpine", "mainline")))
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "Container registry", "--name",
                                  "registry.example/ns/app", "--homepage", "https://registry.example/ns/app",
                                  "--version-url", fake_upstream.base, "--json")
    assert code == 0, err
    assert json.loads(out)["versions"] == ["1.27.1-alpine", "1.27.1", "1.26.0"]
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "Container registry", "--name",
                                  "registry.example/ns/app", "--homepage", "https://registry.example/ns/app",
                                  "--version-url", fake_upstream.base, "--version-filter", "alpine;sha", "--json")
    assert code == 0, err
    assert set(json.loads(out)["versions"]) == {"1.26.0", "1.27.1", "latest", "1.27.1-arm64", "mainline"}
