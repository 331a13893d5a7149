"""The Stackage backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import pytest

import anitrack_backend_stackage
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Stackage"
PATH = "/package/cpphs"
PAGE = ('<tr><td>Version on this page:</td><td><a href="https://hackage.haskell.org/package/cpphs">'
        '<span class="version">1.20.9.1</span></a></td></tr>'
        '<a href="https://hackage.haskell.org/package/cpphs-extra"><span class="version">9.9</span></a>')


def spec(name="cpphs", **fields):
    fields.setdefault("homepage", f"https://www.stackage.org/package/{name}")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_stackage.StackageBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", ["stackage--get-versions--cpphs"])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_stackage, "stackage")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_without_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_stackage, "stackage")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("STACKAGE").name == "Stackage"
    assert anitrack_plugins.ecosystems.for_backend("Stackage") is None


def test_url_comes_from_the_name_only():
    backend = anitrack_backend_stackage.StackageBackend()
    assert backend.upstream_url(spec("conduit", version_url="x")) == "https://www.stackage.org/package/conduit"


# ---- the fake upstream ----

def test_version_linked_to_hackage(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, PAGE)
    assert versions(fake_upstream, anitrack_http) == ["1.20.9.1"]


def test_name_is_matched_literally(fake_upstream, anitrack_http):
    fake_upstream.route("/package/a.b", PAGE.replace("cpphs", "aXb"))
    with pytest.raises(BackendError, match="^a.b: no upstream version found"):
        versions(fake_upstream, anitrack_http, spec("a.b"))


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_not_found_and_nothing_found(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/package/cpphs: server responded with status 404 "Not Found" '
                                           r"\(no such package on Stackage\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, "<html></html>")
    with pytest.raises(BackendError, match="^cpphs: no upstream version found"):
        versions(fake_upstream, anitrack_http)


def test_server_error_and_rate_limit(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(500, ""))
    with pytest.raises(BackendError, match="status 500"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(429, ""))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)
