"""The folder backend on its own."""

import pytest

import anitrack_backend_folder
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError

LISTING = """<a href="../">../</a>
<a href="gnash-0.8.9.tar.gz">gnash-0.8.9.tar.gz</a>
<a href="gnash-0.8.10.tar.bz2">gnash-0.8.10.tar.bz2</a>
<a href="gnash-0.8.10.tar.bz2.sig">sig</a>
"""


def versions(url, anitrack_http, name="gnash"):
    project = ProjectSpec(id=None, name=name, homepage="https://x.example/", backend="folder", version_url=url)
    return anitrack_backend_folder.FolderBackend().get_versions(project, anitrack_http.for_check())


def test_registers(register_plugin, anitrack_plugins):
    assert register_plugin(anitrack_backend_folder, "folder").status == "loaded"
    assert anitrack_plugins.backends.get("Folder").name == "folder"


def test_tarballs(fake_upstream, anitrack_http):
    fake_upstream.route("/gnash/", LISTING)
    assert versions(fake_upstream.url("/gnash/"), anitrack_http) == ["0.8.9", "0.8.10"]


def test_version_directories(fake_upstream, anitrack_http):
    fake_upstream.route("/files/", '<a href="4.9.0/">4.9.0/</a>\n<a href="4.10.1/">4.10.1/</a>\n<a href="doc/">doc/</a>\n')
    assert versions(fake_upstream.url("/files/"), anitrack_http, name="subsurface") == ["4.9.0", "4.10.1"]


def test_star_picks_the_newest_matching_directory(fake_upstream, anitrack_http):
    fake_upstream.route("/pub/", '<a href="v1.9/">v1.9/</a> <a href="v1.10/">v1.10/</a> <a href="x2.0/">x</a>')
    fake_upstream.route("/pub/v1.10/", LISTING)
    assert versions(fake_upstream.url("/pub/v1.*/"), anitrack_http) == ["0.8.9", "0.8.10"]
    assert [r.path for r in fake_upstream.requests] == ["/pub/", "/pub/v1.10/"]


def test_no_matching_directory(fake_upstream, anitrack_http):
    fake_upstream.route("/pub/", '<a href="a/">a/</a>')
    with pytest.raises(BackendError, match="no directory matching '2.\\*'"):
        versions(fake_upstream.url("/pub/2.*/"), anitrack_http)


def test_nothing_found(fake_upstream, anitrack_http):
    fake_upstream.route("/empty/", "<html></html>")
    with pytest.raises(BackendError, match="no upstream version found"):
        versions(fake_upstream.url("/empty/"), anitrack_http)
