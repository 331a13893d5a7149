"""The check of one project against a loopback upstream: every rule of the check."""

import time
from datetime import datetime, timedelta, timezone

from anitrack_core.db.models import Project, ProjectVersion
from anitrack_core.testing_upstream import Answer

PAGE = """<html><body>
<a href="foo-1.0.tar.gz">foo-1.0.tar.gz</a>
<a href="foo-1.2.tar.gz">foo-1.2.tar.gz</a>
<a href="foo-1.10.tar.gz">foo-1.10.tar.gz</a>
<a href="foo-2.0rc1.tar.gz">foo-2.0rc1.tar.gz</a>
<a href="foo-1.2.tar.gz">again</a>
</body></html>"""


def stored(project_id):
    return sorted(v.version for v in ProjectVersion.select().where(ProjectVersion.project == project_id))


def fresh(project):
    return Project.get_by_id(project.id)


def test_first_check_stores_every_version(checker, add_project, fake_upstream):
    fake_upstream.route("/dl/", Answer(200, PAGE, {"ETag": '"v1"', "Last-Modified": "Sat, 01 Jun 2024 10:00:00 GMT"}))
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    applied = checker.check_project(project.id)
    assert applied.result.error is None
    assert stored(project.id) == ["1.0", "1.10", "1.2", "2.0rc1"], "every version, duplicates once"
    after = fresh(project)
    assert after.latest_version == "2.0rc1"
    assert (after.logs, after.check_successful, after.error_counter) == ("Version retrieved correctly", True, 0)
    assert after.next_check - after.last_check == timedelta(hours=1)
    assert (after.http_etag, after.http_last_modified) == ('"v1"', "Sat, 01 Jun 2024 10:00:00 GMT")
    assert applied.result.new_versions == ["2.0rc1", "1.10", "1.2", "1.0"]
    request = fake_upstream.requests_to("/dl/")[0]
    assert request.headers["User-Agent"].startswith("anitrack/")
    assert request.headers["If-Modified-Since"] == "Thu, 01 Jan 1970 00:00:00 GMT"


def test_unchanged_upstream_answers_304_and_nothing_changes(checker, add_project, fake_upstream):
    def page(request):
        if request.headers.get("If-None-Match") == '"v1"':
            return Answer(304)
        return Answer(200, PAGE, {"ETag": '"v1"'})

    fake_upstream.route("/dl/", page)
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    checker.check_project(project.id)
    applied = checker.check_project(project.id)
    assert applied.result.error is None and applied.result.new_versions == []
    assert fresh(project).logs == "No new version found" and fresh(project).check_successful is True
    assert stored(project.id) == ["1.0", "1.10", "1.2", "2.0rc1"]
    assert fake_upstream.requests_to("/dl/")[1].headers["If-None-Match"] == '"v1"'


def test_if_modified_since_falls_back_to_the_newest_version_date(checker, add_project, fake_upstream):
    fake_upstream.route("/dl/", PAGE)  # no validators
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    checker.check_project(project.id)
    checker.check_project(project.id)
    sent = fake_upstream.requests_to("/dl/")[1].headers["If-Modified-Since"]
    assert sent != "Thu, 01 Jan 1970 00:00:00 GMT" and sent.endswith("GMT")


def test_a_new_version_is_added_and_old_ones_kept(checker, add_project, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    checker.check_project(project.id)
    fake_upstream.route("/dl/", PAGE.replace("foo-1.0.tar.gz", "foo-2.0.tar.gz"))
    applied = checker.check_project(project.id)
    assert applied.result.new_versions == ["2.0"]
    assert stored(project.id) == ["1.0", "1.10", "1.2", "2.0", "2.0rc1"], "versions gone upstream are kept"
    assert fresh(project).latest_version == "2.0"


def test_failure_counts_and_leaves_versions_untouched(checker, add_project, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    checker.check_project(project.id)
    fake_upstream.route("/dl/", Answer(500, "<html>oops</html>"))
    for expected in (1, 2):
        applied = checker.check_project(project.id)
        assert applied.result.error.endswith('/dl/: server responded with status 500 "Internal Server Error"')
        assert fresh(project).error_counter == expected
    after = fresh(project)
    assert after.check_successful is False and "status 500" in after.logs
    assert after.latest_version == "2.0rc1" and len(stored(project.id)) == 4
    fake_upstream.route("/dl/", PAGE)
    checker.check_project(project.id)
    assert fresh(project).error_counter == 0, "a success resets the counter"


def test_rate_limit_is_not_counted_and_reschedules(checker, add_project, fake_upstream, runtime):
    from anitrack_core import hookimpl
    from anitrack_core.backend import Backend

    class Limited(Backend):
        name = "Limited"

        def get_versions(self, project, http):
            response = http.get(project.version_url)
            http.raise_for_rate_limit(response)
            return []

    class Plugin:
        @hookimpl
        def anitrack_register_backends(self, registry):
            registry.add(Limited)

    runtime.plugins.register(Plugin(), "limited")
    reset = int(time.time()) + 7200
    fake_upstream.route("/api", Answer(403, "{}", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}))
    project = add_project(name="lim", backend="Limited", version_url=fake_upstream.url("/api"))
    applied = checker.check_project(project.id)
    assert applied.result.rate_limited_until is not None
    after = fresh(project)
    assert after.error_counter == 0 and after.check_successful is False
    expected = datetime.fromtimestamp(reset, timezone.utc)
    assert after.logs == f'Rate limit was reached. Will be reset in "{expected.isoformat()}".'
    assert after.next_check == expected.replace(tzinfo=None)


def test_prefix_filter_and_overlong_versions(checker, add_project, fake_upstream):
    long_name = "foo-1." + "9" * 60 + ".tar.gz"
    fake_upstream.route("/dl/", PAGE + f'<a href="{long_name}">x</a>')
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"), version_filter="rc",
                          version_prefix="1.")
    applied = checker.check_project(project.id)
    assert stored(project.id) == ["1.0", "1.10", "1.2"], "filtered and over-long versions are not stored"
    assert fresh(project).latest_version == "10"
    assert applied.listing.versions == ["10", "2", "0"]


def test_dry_run_writes_nothing(checker, add_project, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    applied = checker.check_project(project.id, dry_run=True)
    assert applied.result.new_versions == ["2.0rc1", "1.10", "1.2", "1.0"]
    assert applied.listing.versions[0] == "2.0rc1"
    assert stored(project.id) == [] and fresh(project).check_successful is None
    assert fresh(project).last_check is None


def test_a_plugin_bug_is_a_check_error_not_a_crash(checker, add_project, runtime):
    from anitrack_core import hookimpl
    from anitrack_core.backend import Backend

    class Buggy(Backend):
        name = "Buggy"

        def get_versions(self, project, http):
            return {}["missing"]

    class Plugin:
        @hookimpl
        def anitrack_register_backends(self, registry):
            registry.add(Buggy)

    runtime.plugins.register(Plugin(), "buggy")
    project = add_project(name="b", backend="Buggy")
    applied = checker.check_project(project.id)
    assert "the backend failed unexpectedly: KeyError" in applied.result.error
    assert fresh(project).error_counter == 1


def test_observers_see_every_check(checker, add_project, fake_upstream, runtime):
    from anitrack_core import hookimpl

    seen = []

    class Observer:
        @hookimpl
        def anitrack_project_checked(self, project, result):
            seen.append((project.name, result.new_versions, result.ok))

    runtime.plugins.register(Observer(), "observer")
    fake_upstream.route("/dl/", PAGE)
    project = add_project(name="foo", version_url=fake_upstream.url("/dl/"))
    checker.check_project(project.id)
    assert seen == [("foo", ["2.0rc1", "1.10", "1.2", "1.0"], True)]


def test_folder_backend_expands_subdirectories(checker, add_project, fake_upstream):
    fake_upstream.route("/pub/foo/", '<a href="1.9/">1.9/</a> <a href="1.10/">1.10/</a> <a href="old/">old</a>')
    fake_upstream.route("/pub/foo/1.10/", '<a href="foo-1.10.0.tar.xz">x</a> <a href="foo-1.10.1.tar.xz">y</a>')
    project = add_project(name="foo", backend="folder", version_url=fake_upstream.url("/pub/foo/*/"))
    applied = checker.check_project(project.id)
    assert applied.result.error is None, applied.result.error
    assert applied.result.new_versions == ["1.10.1", "1.10.0"]


def test_folder_backend_falls_back_to_version_directories(checker, add_project, fake_upstream):
    fake_upstream.route("/files/", '<a href="3.1/">3.1/</a>\n<a href="3.2.1/">3.2.1/</a>\n<a href="docs/">docs</a>\n')
    project = add_project(name="bar", backend="folder", version_url=fake_upstream.url("/files/"))
    assert checker.check_project(project.id).result.new_versions == ["3.2.1", "3.1"]


def test_backends_are_configured_with_the_settings(runtime, monkeypatch):
    from anitrack_core.check.runner import Checker
    from anitrack_core.runtime import load_runtime

    monkeypatch.setenv("ANITRACK_REGEX_TIMEOUT", "0.5")
    import anitrack_backend_custom

    configured = load_runtime()
    configured.plugins.register(anitrack_backend_custom, "custom")
    checker = Checker(configured)
    assert checker.http.policy.regex_timeout == 0.5, "what http.find_versions gives the regex engine"
    backend = checker.backend("CUSTOM")
    assert Checker(configured).backend("custom") is not backend, "one instance per checker"
