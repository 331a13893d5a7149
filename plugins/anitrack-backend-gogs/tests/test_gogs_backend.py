"""The Gogs backend: URL building, a fake Gogs server, then the upstream recordings."""

import pytest

import anitrack_backend_gogs
from anitrack_backend_gogs import GogsBackend, releases_url
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

RELEASES = """<h4><a href="/group/project/src/2.0" rel="nofollow"><i class="tag icon"></i> 2.0</a></h4>
<span class="commit"><a href="/group/project/src/1a2b3c" rel="nofollow"><i class="code icon"></i> 1a2b3c</a></span>
<h4><a href="/group/project/src/1.0" rel="nofollow"><i class="tag icon"></i> 1.0</a></h4>"""


def project(**fields):
    fields.setdefault("homepage", "https://gogs.io/group/project")
    return ProjectSpec(id=None, name="project", backend="Gogs", **fields)


def versions(anitrack_http, **fields):
    return GogsBackend().get_versions(project(**fields), anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_gogs, "gogs").status == "loaded"
    backend = anitrack_plugins.backends.get("gogs")
    assert backend.name == "Gogs" and backend.shared_rate_limit is False and backend.default_regex is None


@pytest.mark.parametrize(("fields", "url"), [
    ({"homepage": "https://gogs.io/group/project/"}, "https://gogs.io/group/project/releases"),
    ({"homepage": "https://gogs.io/group/project"}, "https://gogs.io/group/project/releases"),
    ({"homepage": "https://gogs.io/group/project.git"}, "https://gogs.io/group/project/releases"),
    ({"homepage": "https://gogs.io/group/project/src/master"}, "https://gogs.io/group/project/releases"),
    ({"homepage": "https://example.org/", "version_url": "https://notabug.org/libreboot/lbmk"},
     "https://notabug.org/libreboot/lbmk/releases"),
])
def test_releases_url(fields, url):
    assert releases_url(project(**fields)) == url


@pytest.mark.parametrize("homepage", ["https://gogs.io/project_with_malformed_url", "gogs.io/a/b", "", "https://x//b"])
def test_bad_url_set_up(homepage):
    with pytest.raises(BackendError, match="^Project project was incorrectly set up"):
        releases_url(project(homepage=homepage))


def test_releases(fake_upstream, anitrack_http):
    fake_upstream.route("/group/project/releases", RELEASES)
    assert versions(anitrack_http, homepage=fake_upstream.url("/group/project")) == ["2.0", "1.0"]
    assert "If-Modified-Since" in fake_upstream.requests[0].headers


def test_no_release(fake_upstream, anitrack_http):
    fake_upstream.route("/group/project/releases", "<p>This repository does not have any releases yet.</p>")
    with pytest.raises(BackendError, match=r"^project: no upstream version found\. - .*/releases - <i class"):
        versions(anitrack_http, homepage=fake_upstream.url("/group/project"))


def test_unknown_repository(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match='/group/project/releases: server responded with status 404 "Not Found"$'):
        versions(anitrack_http, homepage=fake_upstream.url("/group/project"))


# ---- the upstream recordings (read in place from ../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "gogs--get-versions-project-homepage-only--libreboot",
    "gogs--get-versions-project-without-any-release--osboot",
    "gogs--get-version--invalid-url",
])
def test_recording(case_id, recorded_case):
    recorded_case(case_id, GogsBackend())
