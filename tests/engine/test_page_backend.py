"""anitrack_core.backends.page.RegexPageBackend, the base of the page-scanning backends, with a backend made here."""

import pytest

from anitrack_core.backends.page import RegexPageBackend
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer


class Downloads(RegexPageBackend):
    name = "Downloads"
    not_found = "no such project here"
    base = ""

    def page_url(self, project):
        return f"{self.base}/dl/{project.name}/"


@pytest.fixture
def backend(fake_upstream):
    made = Downloads()
    made.base = fake_upstream.base
    return made


def spec(name="foo"):
    return ProjectSpec(id=None, name=name, homepage="https://example.org/", backend="Downloads")


def test_the_default_regex_over_the_page(fake_upstream, check_http, backend):
    fake_upstream.route("/dl/foo/", '<a href="foo-1.0.tar.gz">x</a> <a href="foo-1.2.tar.xz">y</a> <a href="bar-9.zip">')
    assert backend.get_versions(spec(), check_http) == ["1.0", "1.2"]


def test_the_page_is_asked_conditionally(fake_upstream, anitrack_http, backend):
    fake_upstream.route("/dl/foo/", Answer(304))
    with pytest.raises(NotModified):
        backend.get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"v1"')))
    assert fake_upstream.requests_to("/dl/foo/")[0].headers["If-None-Match"] == '"v1"'


def test_errors_and_rate_limits_are_never_scanned(fake_upstream, check_http, backend):
    fake_upstream.route("/dl/foo/", Answer(404, '<a href="foo-6.6.tar.gz">'))
    with pytest.raises(FetchError, match=r'/dl/foo/: server responded with status 404 "Not Found" '
                                         r"\(no such project here\)$"):
        backend.get_versions(spec(), check_http)
    fake_upstream.route("/dl/foo/", Answer(503, '<a href="foo-6.6.tar.gz">'))
    with pytest.raises(FetchError, match='status 503 "Service Unavailable"$'):
        backend.get_versions(spec(), check_http)
    fake_upstream.route("/dl/foo/", Answer(429, '<a href="foo-6.6.tar.gz">'))
    with pytest.raises(RateLimitError):
        backend.get_versions(spec(), check_http)


def test_nothing_found(fake_upstream, check_http, backend):
    fake_upstream.route("/dl/foo/", "no tarball here")
    with pytest.raises(BackendError, match="^foo: no upstream version found. - http://"):
        backend.get_versions(spec(), check_http)
