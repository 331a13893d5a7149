"""The GNU project backend: URL building, a fake GNU mirror, then the upstream recordings."""

import pytest

import anitrack_backend_gnu
from anitrack_backend_gnu import GnuBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer

TARBALLS = """<a href="hello-2.10.tar.gz">hello-2.10.tar.gz</a> <a href="hello-2.10.tar.gz.sig">sig</a>
<a href="hello-2.12.1.tar.gz">hello-2.12.1.tar.gz</a> <a href="hello-2.9.tar.gz">hello-2.9.tar.gz</a>"""
DIRECTORIES = '<a href="../">../</a> <a href="0.8.9/">0.8.9/</a> <a href="0.8.10/">0.8.10/</a> <a href="doc/">doc/</a>'


@pytest.fixture
def mirror(fake_upstream, monkeypatch):
    monkeypatch.setattr(GnuBackend, "mirror", fake_upstream.base)
    return fake_upstream


def versions(anitrack_http, name="hello", **fields):
    fields.setdefault("homepage", f"https://www.gnu.org/software/{name}/")
    return GnuBackend().get_versions(ProjectSpec(id=None, name=name, backend="GNU project", **fields), anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_gnu, "gnu").status == "loaded"
    backend = anitrack_plugins.backends.get("gnu project")
    assert backend.name == "GNU project" and backend.default_regex is None and backend.required_version_url is False


def test_package_url():
    assert GnuBackend.package_url("gnash") == "https://ftpmirror.gnu.org/gnu/gnash/"
    with pytest.raises(BackendError, match="incorrectly set up"):
        GnuBackend.package_url("")


def test_tarballs(mirror, anitrack_http):
    mirror.route("/gnu/hello/", TARBALLS)
    assert versions(anitrack_http) == ["2.10", "2.12.1", "2.9"]
    assert "If-Modified-Since" in mirror.requests[0].headers


def test_version_url_is_ignored(mirror, anitrack_http):
    mirror.route("/gnu/hello/", TARBALLS)
    assert versions(anitrack_http, version_url="https://ftp.gnu.org/pub/gnu/other/") == ["2.10", "2.12.1", "2.9"]


def test_version_directories(mirror, anitrack_http):
    mirror.route("/gnu/gnash/", DIRECTORIES)
    assert versions(anitrack_http, name="gnash") == ["0.8.9", "0.8.10"]


def test_through_the_mirror_redirect(mirror, anitrack_http):
    mirror.route("/gnu/hello/", Answer(302, "", {"Location": mirror.url("/mirror/gnu/hello/")}))
    mirror.route("/mirror/gnu/hello/", TARBALLS)
    assert versions(anitrack_http) == ["2.10", "2.12.1", "2.9"]


def test_nothing_found(mirror, anitrack_http):
    mirror.route("/gnu/hello/", '<a href="../">../</a> <a href="README">README</a>')
    with pytest.raises(BackendError, match=r'^hello: no upstream version found\. - .*/gnu/hello/ - href='):
        versions(anitrack_http)


def test_unknown_package(mirror, anitrack_http):
    with pytest.raises(BackendError, match='/gnu/fake/: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, name="fake")


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "gnu-project--custom-get-versions--gnash",
    "gnu-project--custom-get-version--fake",
])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, GnuBackend())
