"""The Debian project backend: URL building, a fake archive pool, then the upstream recordings."""

import pytest

import anitrack_backend_debian
from anitrack_backend_debian import DebianBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer

POOL = """<a href="qpdf_11.1.0-1.debian.tar.xz">qpdf_11.1.0-1.debian.tar.xz</a>
<a href="qpdf_11.1.0-1.dsc">qpdf_11.1.0-1.dsc</a>
<a href="qpdf_11.1.0.orig.tar.gz">qpdf_11.1.0.orig.tar.gz</a>
<a href="qpdf_11.1.0.orig.tar.gz.asc">qpdf_11.1.0.orig.tar.gz.asc</a>
<a href="qpdf_10.6.3.orig.tar.gz">qpdf_10.6.3.orig.tar.gz</a>
<a href="qpdf_11.1.0-1_amd64.deb">qpdf_11.1.0-1_amd64.deb</a>
"""


@pytest.fixture
def pool(fake_upstream, monkeypatch):
    monkeypatch.setattr(DebianBackend, "pool", fake_upstream.url("/debian/pool/main"))
    return fake_upstream


def versions(anitrack_http, name="qpdf", **fields):
    fields.setdefault("homepage", "https://qpdf.sourceforge.io/")
    return DebianBackend().get_versions(ProjectSpec(id=None, name=name, backend="Debian project", **fields),
                                        anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_debian, "debian").status == "loaded"
    backend = anitrack_plugins.backends.get("debian project")
    assert backend.name == "Debian project" and backend.shared_rate_limit is True
    assert backend.default_regex is None and backend.required_version_url is False


@pytest.mark.parametrize(("name", "url"), [
    ("test", "http://ftp.debian.org/debian/pool/main/t/test/"),
    ("libtest", "http://ftp.debian.org/debian/pool/main/libt/libtest/"),
    ("qpdf", "http://ftp.debian.org/debian/pool/main/q/qpdf/"),
    (" guake ", "http://ftp.debian.org/debian/pool/main/g/guake/"),
])
def test_pool_url(name, url):
    assert DebianBackend.pool_url(name) == url


@pytest.mark.parametrize("name", ["", "  ", "a/b"])
def test_bad_name(name):
    with pytest.raises(BackendError, match="incorrectly set up"):
        DebianBackend.pool_url(name)


def test_orig_tarballs(pool, anitrack_http):
    pool.route("/debian/pool/main/q/qpdf/", POOL)
    assert versions(anitrack_http) == ["11.1.0", "10.6.3"]
    assert "If-Modified-Since" in pool.requests[0].headers


def test_homepage_and_version_url_are_ignored(pool, anitrack_http):
    pool.route("/debian/pool/main/q/qpdf/", POOL)
    assert versions(anitrack_http, homepage="https://example.org/", version_url="https://example.org/x/") == ["11.1.0", "10.6.3"]


def test_no_tarball(pool, anitrack_http):
    pool.route("/debian/pool/main/q/qpdf/", '<a href="qpdf_1.0-1_all.deb">deb</a>')
    with pytest.raises(BackendError, match=r"^qpdf: no upstream version found\. - .*/q/qpdf/ - \(\?i\)qpdf"):
        versions(anitrack_http)


def test_unknown_package(pool, anitrack_http):
    with pytest.raises(BackendError, match='/f/foo/: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, name="foo")


def test_rate_limited(pool, anitrack_http):
    from anitrack_core.errors import RateLimitError

    pool.route("/debian/pool/main/q/qpdf/", Answer(429, "slow down", {"Retry-After": "60"}))
    with pytest.raises(RateLimitError):
        versions(anitrack_http)


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "debian-project--get-versions-no-z-release--libgnupg-interface-perl",
    "debian-project--get-version--libgnupg-interface-perl",
    "debian-project--get-version--foo",
])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, DebianBackend())
