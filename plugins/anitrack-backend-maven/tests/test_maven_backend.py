"""The Maven Central backend on its own: URLs, a fake upstream, and the recorded upstream answers."""

import pytest

import anitrack_backend_maven
from anitrack_core.check.http import NotModified, Validators
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError, RateLimitError
from anitrack_core.testing_upstream import Answer

BACKEND = "Maven Central"
PATH = "/maven2/com/google/inject/guice/"
LISTING = """<pre id="contents">
<a href="../">../</a>
<a href="4.0/" title="4.0/">4.0/</a>        2015-04-28 18:12    -
<a href="4.0-beta5/" title="4.0-beta5/">4.0-beta5/</a>  2014-07-16 18:12    -
<a href="5.1.0/" title="5.1.0/">5.1.0/</a>    2022-01-24 18:12    -
<a href="maven-metadata.xml" title="maven-metadata.xml">maven-metadata.xml</a>  2022-01-24 2466
</pre>"""


def spec(name="guice", **fields):
    fields.setdefault("homepage", "https://github.com/google/guice")
    fields.setdefault("version_url", "com.google.inject:guice")
    return ProjectSpec(id=None, name=name, backend=BACKEND, **fields)


def backend_at(fake_upstream):
    return fake_upstream.serving(anitrack_backend_maven.MavenBackend())


def versions(fake_upstream, anitrack_http, project=None):
    return backend_at(fake_upstream).get_versions(project or spec(), anitrack_http.for_check())


# ---- the recorded upstream answers (../shared/upstream-recordings, never copied here) ----

@pytest.mark.parametrize("case_id", [
    "maven-central--maven-get-versions--plexus-maven-plugin",
    "maven-central--maven-coordinates-in-name--org-codehaus-plexus-plexus-maven-plugin",
])
def test_recorded_case(case_id, register_plugin, recorded_case):
    """What ``anitrack check --dry-run`` must print for the case: the backend, then the engine's cleaning."""
    register_plugin(anitrack_backend_maven, "maven")
    recorded_case(case_id)


# ---- registration and URLs ----

def test_registers_backend_and_ecosystem(register_plugin, anitrack_plugins):
    info = register_plugin(anitrack_backend_maven, "maven")
    assert info.status == "loaded", info.error
    assert anitrack_plugins.backends.get("maven central").name == "Maven Central"
    ecosystem = anitrack_plugins.ecosystems.for_backend("Maven Central")
    assert ecosystem.name == "maven" and ecosystem.default_version_scheme is None


@pytest.mark.parametrize("fields, url", [
    ({"homepage": "https://repo1.maven.org/maven2/test/test"}, "https://repo1.maven.org/maven2/test/test"),
    ({"homepage": "http://repo2.maven.org/maven2/a/b/", "version_url": "x:y"}, "http://repo2.maven.org/maven2/a/b/"),
    ({"version_url": "test:test"}, "https://repo1.maven.org/maven2/test/test/"),
    ({"version_url": "test.test:test"}, "https://repo1.maven.org/maven2/test/test/test/"),
    ({"version_url": " org.codehaus.plexus:plexus-maven-plugin:1.3.8 "},
     "https://repo1.maven.org/maven2/org/codehaus/plexus/plexus-maven-plugin/"),
    ({"name": "org.codehaus.plexus:plexus-maven-plugin"},
     "https://repo1.maven.org/maven2/org/codehaus/plexus/plexus-maven-plugin/"),
    ({"name": "guice"}, None),
    ({"version_url": "https://example.org/guice"}, None),
])
def test_url(fields, url):
    fields = {"name": "guice", "homepage": "https://example.org/", "version_url": None, **fields}
    assert anitrack_backend_maven.MavenBackend().upstream_url(ProjectSpec(id=None, backend=BACKEND, **fields)) == url


# ---- the fake upstream ----

def test_versions_are_the_numbered_directories(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, LISTING)
    assert versions(fake_upstream, anitrack_http) == ["4.0", "4.0-beta5", "5.1.0"]


def test_request_is_conditional_and_304_means_nothing_new(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, Answer(304))
    with pytest.raises(NotModified):
        backend_at(fake_upstream).get_versions(spec(), anitrack_http.for_check(validators=Validators(etag='"e"')))
    assert fake_upstream.requests_to(PATH)[0].headers["If-None-Match"] == '"e"'


def test_no_coordinates(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match="^Artifact needs to be in format groupId:artifactId"):
        versions(fake_upstream, anitrack_http, spec(version_url=None))
    assert fake_upstream.requests == []


def test_not_found_and_errors(fake_upstream, anitrack_http):
    with pytest.raises(BackendError, match=r'^http://127\.0\.0\.1:\d+/maven2/.*: server responded with status 404 "Not Found" '
                                           r"\(no such artifact on Maven Central\)$"):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(502, "bad gateway"))
    with pytest.raises(BackendError, match='status 502 "Bad Gateway"'):
        versions(fake_upstream, anitrack_http)
    fake_upstream.route(PATH, Answer(429, ""))
    with pytest.raises(RateLimitError):
        versions(fake_upstream, anitrack_http)


def test_empty_listing(fake_upstream, anitrack_http):
    fake_upstream.route(PATH, '<a href="../">../</a>\n<a href="maven-metadata.xml">maven-metadata.xml</a>')
    with pytest.raises(BackendError, match="^guice: no upstream version found"):
        versions(fake_upstream, anitrack_http)
