"""A check pass over the due projects: runs, counts, rate-limit pauses, deletion of hopeless projects."""

import os
from datetime import timedelta

from anitrack_core.db import distros, packages
from anitrack_core.db.models import Project, ProjectVersion, Run, utcnow
from anitrack_core.testing_upstream import Answer

PAGE = '<a href="foo-1.0.tar.gz">x</a>\n<a href="foo-1.1.tar.gz">y</a>\n'


def test_a_pass_checks_due_projects_only_and_records_a_run(checker, add_project, fake_upstream):
    fake_upstream.route("/ok/", PAGE)
    due = [add_project(name="foo", homepage=f"https://e.org/{i}", version_url=fake_upstream.url("/ok/"))
           for i in range(5)]
    later = add_project(name="foo", homepage="https://e.org/later", version_url=fake_upstream.url("/ok/"))
    Project.update(next_check=utcnow() + timedelta(hours=2)).where(Project.id == later.id).execute()
    archived = add_project(name="foo", homepage="https://e.org/arch", version_url=fake_upstream.url("/ok/"))
    Project.update(archived=True).where(Project.id == archived.id).execute()
    broken = add_project(name="foo", homepage="https://e.org/broken", version_url=fake_upstream.url("/missing/"))

    summary = checker.run_pass()
    assert (summary.checked, summary.ok, summary.errors, summary.ratelimited) == (6, 5, 1, 0)
    run = Run.get()
    assert (run.total_count, run.success_count, run.error_count, run.ratelimit_count) == (6, 5, 1, 0)
    for project in due:
        assert ProjectVersion.select().where(ProjectVersion.project == project.id).count() == 2
    assert Project.get_by_id(later.id).last_check is None
    assert Project.get_by_id(archived.id).last_check is None, "archived projects are never checked"
    assert Project.get_by_id(broken.id).error_counter == 1
    assert checker.run_pass().checked == 0, "nothing is due any more"
    assert Run.select().count() == 1, "an empty pass records no run"


def test_check_all_includes_projects_not_due(checker, add_project, fake_upstream):
    fake_upstream.route("/ok/", PAGE)
    project = add_project(name="foo", version_url=fake_upstream.url("/ok/"))
    Project.update(next_check=utcnow() + timedelta(hours=2)).where(Project.id == project.id).execute()
    assert checker.run_pass().checked == 0
    assert checker.run_pass(everything=True).checked == 1
    assert checker.run_pass(ids=[project.id]).checked == 1


def test_a_rate_limited_backend_is_paused_for_the_rest_of_the_pass(checker, add_project, fake_upstream, runtime):
    from anitrack_core import hookimpl
    from anitrack_core.backend import Backend

    class Limited(Backend):
        name = "Limited"

        def get_versions(self, project, http):
            response = http.get(project.version_url)
            http.raise_for_rate_limit(response)
            return ["1.0"]

    class Plugin:
        @hookimpl
        def anitrack_register_backends(self, registry):
            registry.add(Limited)

    runtime.plugins.register(Plugin(), "limited")
    fake_upstream.route("/api", Answer(429, "{}", {"Retry-After": "3600"}))
    for index in range(20):
        add_project(name=f"p{index}", backend="Limited", version_url=fake_upstream.url("/api"))
    summary = checker.run_pass()
    assert summary.ratelimited == 20 and summary.errors == 0
    assert len(fake_upstream.requests_to("/api")) < 20, "the paused backend's other projects were not fetched"
    assert all(p.next_check > utcnow() + timedelta(minutes=50) for p in Project.select())
    assert all(p.error_counter == 0 for p in Project.select())


def test_hopeless_projects_without_versions_or_packages_are_deleted(checker, add_project, fake_upstream, runtime,
                                                                     monkeypatch):
    fake_upstream.route("/ok/", PAGE)
    lonely = add_project(name="lonely", version_url=fake_upstream.url("/gone/"))
    mapped = add_project(name="mapped", version_url=fake_upstream.url("/gone/"))
    packages.map_package(mapped, distros.add_distro("Fedora")[0], "mapped")
    with_versions = add_project(name="old", version_url=fake_upstream.url("/gone/"))
    ProjectVersion.create(project=with_versions, version="1.0")
    Project.update(error_counter=99).execute()
    summary = checker.run_pass()
    assert summary.errors == 3 and summary.deleted == 1
    assert Project.get_or_none(Project.id == lonely.id) is None
    assert Project.get_by_id(mapped.id).error_counter == 100
    assert Project.get_by_id(with_versions.id).error_counter == 100


def test_the_scheduler_runs_passes_in_the_background(checker, add_project, fake_upstream):
    import time

    from anitrack_core.check.scheduler import Scheduler

    fake_upstream.route("/ok/", PAGE)
    project = add_project(name="foo", version_url=fake_upstream.url("/ok/"))
    scheduler = Scheduler(checker, interval=0.2)
    scheduler.start()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not ProjectVersion.select().count():
            time.sleep(0.1)
    finally:
        scheduler.stop(timeout=10)
    assert Project.get_by_id(project.id).latest_version == "1.1"


def test_a_generic_backend_answering_429_pauses_only_that_project(checker, add_project, fake_upstream):
    fake_upstream.route("/limited/", Answer(429, "slow down", {"Retry-After": "3600"}))
    fake_upstream.route("/ok/", PAGE)
    limited = add_project(name="foo", homepage="https://a.example/", version_url=fake_upstream.url("/limited/"))
    fine = add_project(name="foo", homepage="https://b.example/", version_url=fake_upstream.url("/ok/"))
    summary = checker.run_pass()
    assert summary.ok == 1
    assert Project.get_by_id(fine.id).latest_version == "1.1"
    assert Project.get_by_id(limited.id).error_counter in (0, 1)


def test_a_large_pass_fetches_in_worker_processes(runtime, add_project, fake_upstream, monkeypatch):
    """Worker processes load the installed plugins (the custom backend) and the parent writes."""
    from anitrack_core.check import runner
    from anitrack_core.check.runner import Checker
    from anitrack_core.runtime import load_runtime

    monkeypatch.setattr(runner, "MIN_FOR_PROCESSES", 5)
    monkeypatch.setenv("ANITRACK_CHECK_PROCESSES", "2")
    monkeypatch.delenv("ANITRACK_NO_PLUGIN_AUTOLOAD")
    fake_upstream.route("/ok/", PAGE)
    for index in range(12):
        add_project(name="foo", homepage=f"https://e.org/{index}", version_url=fake_upstream.url("/ok/"))
    checker = Checker(load_runtime())
    # the workers get the parent's settings, not the environment: without them, loopback is refused
    monkeypatch.delenv("ANITRACK_ALLOW_PRIVATE_UPSTREAMS")
    summary = checker.run_pass()
    assert (summary.checked, summary.ok) == (12, 12)
    assert ProjectVersion.select().count() == 24
    assert len(fake_upstream.requests_to("/ok/")) == 12


#: `anitrack check` in a process of its own, its pass fetching in worker processes from 5 projects on, saying
#: on stderr how its workers were started
_ONE_OFF_CHECK = """
import sys
from anitrack_core.check import runner, workers
runner.MIN_FOR_PROCESSES = 5
chosen = workers._start_method
def start_method():
    method = chosen()
    print("workers started with", method, file=sys.stderr)
    return method
workers._start_method = start_method
from anitrack_core.cli import main
sys.exit(main(["check"]))
"""


def test_a_one_off_check_command_forks_its_fetch_workers(runtime, add_project, fake_upstream, monkeypatch):
    """A command that runs no other thread starts its workers with fork (no imports to wait for); they
    check as the spawned ones do."""
    import subprocess
    import sys

    monkeypatch.setenv("ANITRACK_CHECK_PROCESSES", "2")
    monkeypatch.delenv("ANITRACK_NO_PLUGIN_AUTOLOAD")
    fake_upstream.route("/ok/", PAGE)
    for index in range(12):
        add_project(name="foo", homepage=f"https://e.org/{index}", version_url=fake_upstream.url("/ok/"))
    runtime.db.close()
    done = subprocess.run([sys.executable, "-c", _ONE_OFF_CHECK], env=dict(os.environ), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "workers started with fork" in done.stderr
    assert done.stdout.startswith("checked 12, ok 12, errors 0"), done.stdout
    assert ProjectVersion.select().count() == 24
    assert len(fake_upstream.requests_to("/ok/")) == 12


def test_worker_processes_are_counted_once_for_the_pass_and_the_web_server():
    from anitrack_core.runtime import worker_count

    assert worker_count(3) == 3
    assert worker_count(0) == max(1, os.cpu_count() or 1)


def test_a_worker_rebuilds_the_parents_runtime_from_its_settings_alone(runtime, monkeypatch):
    import pickle

    from anitrack_core.check.runner import WorkerChecker
    from anitrack_core.runtime import load_runtime, settings_snapshot, worker_runtime

    monkeypatch.setenv("ANITRACK_REGEX_TIMEOUT", "0.75")
    parent = load_runtime(database=False)
    setup = pickle.loads(pickle.dumps(WorkerChecker(*settings_snapshot(parent.settings))))
    monkeypatch.setenv("ANITRACK_REGEX_TIMEOUT", "9")
    monkeypatch.setenv("ANITRACK_CHECK_DEADLINE", "not a number")  # a worker reading the environment would fail
    rebuilt = worker_runtime(setup.values, setup.sources)
    assert dict(rebuilt.settings) == dict(parent.settings)
    assert rebuilt.settings.regex_timeout == 0.75
    assert rebuilt.settings.source("regex_timeout") == "ANITRACK_REGEX_TIMEOUT"
    assert sorted(rebuilt.plugins.info) == sorted(parent.plugins.info)


def test_projects_named_by_a_feed_are_checked_first(checker, add_project, fake_upstream, runtime):
    from anitrack_core import hookimpl
    from anitrack_core.backend import Backend, FeedEntry
    from anitrack_core.check.scheduler import Scheduler

    class Indexed(Backend):
        name = "Indexed"

        def get_versions(self, project, http):
            return ["1.0"]

        def recent_releases(self, http):
            http.get(fake_upstream.url("/feed"))
            return [FeedEntry("Hot", "2.0", None), FeedEntry("unknown", "1.0", None)]

    class Plugin:
        @hookimpl
        def anitrack_register_backends(self, registry):
            registry.add(Indexed)

    runtime.plugins.register(Plugin(), "indexed")
    fake_upstream.route("/feed", "<rss/>")
    later = utcnow() + timedelta(hours=1)
    hot = add_project(name="hot", backend="Indexed")
    cold = add_project(name="cold", backend="Indexed")
    Project.update(next_check=later).execute()
    assert Scheduler(checker, interval=60).promote_feed_projects() == 1
    assert [p.id for p in Project.select().where(Project.next_check <= utcnow())] == [hot.id]
    assert checker.run_pass().checked == 1
    assert Project.get_by_id(cold.id).last_check is None
