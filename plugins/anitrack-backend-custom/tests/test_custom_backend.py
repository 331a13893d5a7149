"""The custom backend on its own, as a plugin author tests a backend."""

import pytest

import anitrack_backend_custom
from anitrack_core.check.http import NotModified
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError


def spec(url, **fields):
    return ProjectSpec(id=None, name=fields.pop("name", "geany"), homepage="https://geany.example/",
                       backend="custom", version_url=url, **fields)


def test_registers(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_custom, "custom")
    assert info.status == "loaded", info.error
    backend = anitrack_plugins.backends.get("CUSTOM")
    assert backend.name == "custom" and backend.required_version_url


def test_default_regex(fake_upstream, check_http):
    fake_upstream.route("/r", '<a href="geany-1.36.tar.bz2">\n<a href="geany-1.37.1.tar.gz">\n<a href="other-9.tar.gz">')
    found = anitrack_backend_custom.CustomBackend().get_versions(spec(fake_upstream.url("/r")), check_http)
    assert found == ["1.36", "1.37.1"]


def test_own_regex_with_name_and_groups(fake_upstream, check_http):
    fake_upstream.route("/r", "release geany_1_2_3 and geany_1_3_0")
    found = anitrack_backend_custom.CustomBackend().get_versions(
        spec(fake_upstream.url("/r"), regex=r"%(name)s_(\d+)_(\d+)_(\d+)"), check_http)
    assert found == ["1.2.3", "1.3.0"]


def test_no_match_is_an_error_naming_url_and_regex(fake_upstream, check_http):
    fake_upstream.route("/r", "nothing")
    with pytest.raises(BackendError, match="geany: no upstream version found. - http://127.0.0.1:"):
        anitrack_backend_custom.CustomBackend().get_versions(spec(fake_upstream.url("/r")), check_http)


def test_conditional_request_and_304(fake_upstream, anitrack_http):
    from anitrack_core.check.http import Validators
    from anitrack_core.testing_upstream import Answer

    fake_upstream.route("/r", Answer(304))
    with pytest.raises(NotModified):
        anitrack_backend_custom.CustomBackend().get_versions(
            spec(fake_upstream.url("/r")), anitrack_http.for_check(validators=Validators(etag='"x"')))
    assert fake_upstream.requests_to("/r")[0].headers["If-None-Match"] == '"x"'
