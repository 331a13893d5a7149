"""What the Drupal6 and Drupal7 backends share: anitrack_backend_drupal7.release_history.DrupalBackend."""

import pytest

from anitrack_backend_drupal7.release_history import DrupalBackend
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.errors import BackendError
from anitrack_core.testing_upstream import Answer


@pytest.fixture
def drupal(fake_upstream):
    class Drupal5(DrupalBackend):
        name = "Drupal5"
        core = "5"
        updates = fake_upstream.base

    return Drupal5


def spec(name, backend):
    return ProjectSpec(id=None, name=name, homepage="https://example.org/", backend=backend)


@pytest.mark.parametrize("name", ["drupal5:", " ", "a/b"])
def test_drupal_bad_name(name, drupal):
    with pytest.raises(BackendError, match="incorrectly set up: .*'Drupal5:'"):
        drupal.history_url(name)


def test_drupal_unknown_project(fake_upstream, check_http, drupal):
    fake_upstream.route("/release-history/foo/5.x", """<?xml version="1.0" encoding="utf-8"?>
<error>No release history was found for the requested project (foo).</error>""")
    with pytest.raises(BackendError, match=r"^foo: No release history was found for the requested project \(foo\)\."):
        drupal().get_versions(spec("foo", "Drupal5"), check_http)


def test_drupal_server_error(fake_upstream, check_http, drupal):
    fake_upstream.route("/release-history/pathauto/5.x", Answer(503, "down"))
    with pytest.raises(BackendError, match=r'^http://.*/release-history/pathauto/5\.x: server responded with status 503 "Service Unavailable"$'):
        drupal().get_versions(spec("pathauto", "Drupal5"), check_http)
