"""What the PEAR and PECL backends share: anitrack_backend_pear.channel.ChannelBackend, with a channel made here."""

import pytest

from anitrack_backend_pear.channel import ChannelBackend
from anitrack_core.check.http import FetchError, NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

PATH = "/rest/r/php_uml/allreleases.xml"


@pytest.fixture
def channel(fake_upstream):
    class Channel(ChannelBackend):
        name = "channel"
        site = "https://channel.example"
        api_base = fake_upstream.base
        feed_url = fake_upstream.url("/feed")

    return Channel()


def spec(name, backend):
    return ProjectSpec(id=None, name=name, homepage="https://example.org/", backend=backend)


def test_channel_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http, channel):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        channel.get_versions(spec("PHP-UML", "channel"), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_channel_not_found_and_empty(fake_upstream, check_http, channel):
    with pytest.raises(BackendError, match=r"^http://127\.0\.0\.1:\d+/rest/r/php_uml/allreleases\.xml: "
                                           r'server responded with status 404 "Not Found" \(no such package: php_uml\)$'):
        channel.get_versions(spec("PHP-UML", "channel"), check_http)
    fake_upstream.route(PATH, "<a><p>PHP_UML</p></a>")
    with pytest.raises(BackendError, match=r"^No versions found for php_uml at http://"):
        channel.get_versions(spec("PHP-UML", "channel"), check_http)


def test_channel_server_error_and_rate_limit(fake_upstream, check_http, channel):
    fake_upstream.route(PATH, Answer(500, ""))
    with pytest.raises(BackendError, match="status 500"):
        channel.get_versions(spec("PHP_UML", "channel"), check_http)
    fake_upstream.route(PATH, Answer(429, ""))
    with pytest.raises(RateLimitError):
        channel.get_versions(spec("PHP_UML", "channel"), check_http)


def test_channel_feed_errors(fake_upstream, check_http, channel):
    fake_upstream.route("/feed", "not xml at all")
    with pytest.raises(FetchError, match="not well-formed XML"):
        channel.recent_releases(check_http)
