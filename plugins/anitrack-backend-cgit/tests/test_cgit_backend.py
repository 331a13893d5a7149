"""The Cgit backend: URL building, a fake cgit server, then the upstream recordings."""

import pytest

import anitrack_backend_cgit
from anitrack_backend_cgit import CgitBackend, tags_url
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer

TAGS = """<table class='list nowrap'>
<tr><td><a href='/cgit/tag/?h=v1.2.3'>v1.2.3</a></td><td><a href='/cgit/snapshot/cgit-1.2.3.tar.xz'>cgit-1.2.3.tar.xz</a> (<a href='/cgit/snapshot/cgit-1.2.3.tar.asc'>sig</a>)&nbsp;&nbsp;<a href='/cgit/snapshot/cgit-1.2.3.zip'>cgit-1.2.3.zip</a></td></tr>
<tr><td><a href='/cgit/tag/?h=v1.2'>v1.2</a></td><td><a href='/cgit/snapshot/CGIT-1.2.tar.gz'>CGIT-1.2.tar.gz</a></td></tr>
<tr><td><a href='/cgit/tag/?h=v0.9'>v0.9</a></td><td><a href='/cgit/snapshot/0.9.zip'>0.9.zip</a></td></tr>
</table>"""


def project(name="cgit", **fields):
    fields.setdefault("homepage", "https://git.example/cgit")
    return ProjectSpec(id=None, name=name, backend="Cgit", **fields)


def versions(anitrack_http, **fields):
    return CgitBackend().get_versions(project(**fields), anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_cgit, "cgit").status == "loaded"
    backend = anitrack_plugins.backends.get("cgit")
    assert backend.name == "Cgit" and backend.shared_rate_limit is False
    assert backend.default_regex is None and backend.default_version_scheme is None
    assert backend.required_version_url is False and backend.check_interval.total_seconds() == 3600


@pytest.mark.parametrize(("fields", "url"), [
    ({"homepage": "https://git.zx2c4.com/cgit/"}, "https://git.zx2c4.com/cgit/refs/tags"),
    ({"homepage": "https://git.zx2c4.com/cgit"}, "https://git.zx2c4.com/cgit/refs/tags"),
    ({"homepage": "https://example.org/", "version_url": "https://git.savannah.gnu.org/cgit/gnuzilla.git/"},
     "https://git.savannah.gnu.org/cgit/gnuzilla.git/refs/tags"),
])
def test_tags_url(fields, url):
    assert tags_url(project(**fields)) == url


@pytest.mark.parametrize("homepage", ["", "git.zx2c4.com/cgit", "ftp://git.example/cgit"])
def test_bad_url_set_up(homepage):
    with pytest.raises(BackendError, match="^Project cgit was incorrectly set up"):
        tags_url(project(homepage=homepage))


def test_snapshots(fake_upstream, anitrack_http):
    fake_upstream.route("/cgit/refs/tags", TAGS)
    assert versions(anitrack_http, homepage=fake_upstream.url("/cgit/")) == ["1.2.3", "1.2", "0.9"]
    assert "If-Modified-Since" in fake_upstream.requests[0].headers  # a conditional request


def test_name_is_escaped(fake_upstream, anitrack_http):
    fake_upstream.route("/x/refs/tags", "<a href='/s/c.git-2.0.tar.gz'>c.git-2.0.tar.gz</a>\n"
                                        "<a href='/s/cxgit-3.0.tar.gz'>cxgit-3.0.tar.gz</a>")
    assert versions(anitrack_http, name="c.git", homepage=fake_upstream.url("/x")) == ["2.0", "cxgit-3.0"]


def test_no_snapshot(fake_upstream, anitrack_http):
    fake_upstream.route("/alisp.git/refs/tags", "<table class='list nowrap'></table>")
    with pytest.raises(BackendError, match=r"^cgit: no upstream version found\. - .*/alisp\.git/refs/tags - "):
        versions(anitrack_http, homepage=fake_upstream.url("/alisp.git"))


def test_not_found(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match='/missing.git/refs/tags: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, homepage=fake_upstream.url("/missing.git"))


def test_not_modified(fake_upstream, anitrack_http):
    from anitrack_core.check.http import NotModified

    fake_upstream.route("/cgit/refs/tags", Answer(304))
    with pytest.raises(NotModified):
        versions(anitrack_http, homepage=fake_upstream.url("/cgit"))


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "cgit--get-versions-project-homepage-only--cgit",
    "cgit--get-versions-project-without-any-release--a-list-implementation",
])
def test_recording(case_id, recorded_case):
    run = recorded_case(case_id, CgitBackend())
    if run.error:
        assert "no upstream version found" in run.error
