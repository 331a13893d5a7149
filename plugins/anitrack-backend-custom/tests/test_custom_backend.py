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


@pytest.mark.parametrize("status", [404, 410, 500])
def test_an_error_page_is_an_error_not_a_page_to_scan(fake_upstream, check_http, status):
    from anitrack_core.check.http import FetchError
    from anitrack_core.testing_upstream import Answer

    fake_upstream.route("/r", Answer(status, '<a href="geany-9.9.tar.gz">an error page naming a tarball</a>'))
    with pytest.raises(FetchError, match=f"/r: server responded with status {status} ") as caught:
        anitrack_backend_custom.CustomBackend().get_versions(spec(fake_upstream.url("/r")), check_http)
    assert caught.value.status == status


def test_a_429_page_is_a_rate_limit_not_a_page_to_scan(fake_upstream, check_http):
    from anitrack_core.errors import RateLimitError
    from anitrack_core.testing_upstream import Answer

    fake_upstream.route("/r", Answer(429, '<a href="geany-9.9.tar.gz">slow down</a>', {"Retry-After": "120"}))
    with pytest.raises(RateLimitError) as caught:
        anitrack_backend_custom.CustomBackend().get_versions(spec(fake_upstream.url("/r")), check_http)
    assert caught.value.reset_time is not None


def test_the_operators_regex_timeout_is_used(fake_upstream, anitrack_http, monkeypatch):
    import anitrack_core.check.http.client as client
    from dataclasses import replace

    seen = []
    real = client.versions_from_text
    monkeypatch.setattr(client, "versions_from_text", lambda *a, **kw: seen.append(kw["timeout"]) or real(*a, **kw))
    anitrack_http.policy = replace(anitrack_http.policy, regex_timeout=0.25)
    fake_upstream.route("/r", '<a href="geany-1.36.tar.bz2">')
    assert anitrack_backend_custom.CustomBackend().get_versions(spec(fake_upstream.url("/r")),
                                                                anitrack_http.for_check()) == ["1.36"]
    assert seen == [0.25]
