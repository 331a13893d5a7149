"""`anitrack import anitya-db` against a real Anitya's database (SQLite and PostgreSQL) and its API."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .compare import differences, served_anitrack


def _import(run_anitrack, *argv):
    code, out, err = run_anitrack("import", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _expected_differences(facts):
    """What the import changes on purpose: the project whose name differs only in case moved out of pypi,
    the package in the distribution 'debian' merged into 'Debian' where 'geany' was taken."""
    twin = facts["twin"]
    return {(twin, "projects", "ecosystem"), (3, "v1 project", "packages")}


def _check_like_anitya(anitya_db, serve_anitya, run_anitrack):
    assert run_anitrack("db", "upgrade")[0] == 0
    report = _import(run_anitrack, "anitya-db", anitya_db.url)
    counts = report["counts"]
    assert counts["projects"] == {"new": 13, "changed": 0, "unchanged": 0, "skipped": 0}
    assert counts["versions"]["new"] == 27
    assert counts["packages"] == {"new": 5, "changed": 0, "unchanged": 0, "skipped": 2}
    assert counts["flags"]["new"] == 2 and counts["distros"]["new"] == 3
    assert counts["users"] == {"new": 2, "changed": 0, "unchanged": 0, "skipped": 1}
    assert counts["tokens"] == {"new": 3, "changed": 0, "unchanged": 0, "skipped": 1}
    reasons = {(p["kind"], p["reason"].split(":")[0]) for p in report["problems"]}
    assert ("packages", "its project is gone") in reasons
    assert ("distros", "name differs only in letter case from another distribution's") in reasons
    assert any(p["kind"] == "projects" and "backend 'Google code'" in p["row"] for p in report["problems"])
    assert any(p["kind"] == "projects" and p["row"].startswith(f"project {anitya_db.facts['twin']} 'Requests'")
               for p in report["problems"])

    with served_anitrack() as anitrack:
        found = differences(serve_anitya(anitya_db.url), anitrack)
    assert {d[:3] for d in found} == _expected_differences(anitya_db.facts), found

    from anitrack_core.db.accounts import find_user, user_for_token
    from anitrack_core.db.models import OutboxEvent, Project, ProjectFlag, database_proxy

    with database_proxy.connection_context():
        tokens = anitya_db.facts["tokens"]
        assert all(user_for_token(t).username == "alice" for t in tokens["alice"])
        assert user_for_token(tokens["bob"][0]) is None  # inactive, as in Anitya (kept so)
        alice = find_user("ALICE@example.org")
        assert alice.username == "alice" and alice.admin and alice.active
        assert not find_user("bob@example.org").active
        assert OutboxEvent.select().count() == 0  # imported history announces nothing
        assert {f.state for f in ProjectFlag.select()} == {"open", "closed"}
        prefixed = Project.get(Project.name == "prefixed")
        assert prefixed.releases_only and prefixed.version_prefix == "v" and prefixed.version_url == "owner/prefixed"
        assert Project.get(Project.name == "requests").error_counter == 2
    again = _import(run_anitrack, "anitya-db", anitya_db.url)
    assert all(c["new"] == 0 and c["changed"] == 0 for c in again["counts"].values()), again["counts"]


def test_import_from_anitya_sqlite_answers_like_anitya(anitya_sqlite, serve_anitya, run_anitrack):
    _check_like_anitya(anitya_sqlite, serve_anitya, run_anitrack)


def test_import_from_anitya_postgres_answers_like_anitya(anitya_postgres, serve_anitya, run_anitrack):
    _check_like_anitya(anitya_postgres, serve_anitya, run_anitrack)
    if os.environ.get("ANITRACK_TEST_DB") == "postgres":
        from anitrack_core.db.models import Project, database_proxy

        with database_proxy.connection_context():  # the sequence was moved past the imported ids
            created = Project.create(name="after", name_key="after", homepage="https://after.example.org/",
                                     ecosystem_name="x", ecosystem_key="x")
            assert created.id > max(p.id for p in Project.select() if p.name != "after")


def _counts(url):
    """``(projects, versions, packages, projects without a listing)`` in the store at *url*, read by another
    connection than the import's."""
    from anitrack_core.db.database import make_database

    db = make_database(url)
    try:
        return tuple(db.execute_sql(sql).fetchone()[0] for sql in (
            "SELECT COUNT(*) FROM project", "SELECT COUNT(*) FROM project_version", "SELECT COUNT(*) FROM package",
            "SELECT COUNT(*) FROM project WHERE version_listing IS NULL"))
    finally:
        db.close_all()


def test_a_killed_import_resumes_and_finishes(anitya_bulk, anitrack_env, run_anitrack):
    source = anitya_bulk(1500)
    assert run_anitrack("db", "upgrade")[0] == 0
    store = anitrack_env["ANITRACK_DATABASE_URL"]
    process = subprocess.Popen([sys.executable, "-m", "anitrack_core.cli", "import", "anitya-db", source,
                                "--batch-size", "10", "--quiet"], env=os.environ.copy(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if _counts(store)[0] >= 100:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.005)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL, "the import ended before it could be killed"
    halfway, versions, _, _ = _counts(store)
    assert 100 <= halfway < 1500
    assert versions == 3 * halfway  # every batch is whole: its projects came with their versions
    report = _import(run_anitrack, "anitya-db", source)
    assert report["resumed_after"] is not None
    assert report["counts"]["projects"]["new"] + report["counts"]["projects"]["unchanged"] <= 1500
    assert _counts(store) == (1500, 4500, 1500, 0)
    again = _import(run_anitrack, "anitya-db", source)
    assert again["resumed_after"] is None and again["counts"]["projects"]["unchanged"] == 1500


def test_sources_that_cannot_be_imported_are_named(anitya_sqlite, run_anitrack, tmp_path):
    assert run_anitrack("db", "upgrade")[0] == 0
    code, _, err = run_anitrack("import", "anitya-db", f"sqlite:///{tmp_path / 'absent.sqlite'}")
    assert code == 1 and "no SQLite database at" in err
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE things (id INTEGER)").connection.close()
    code, _, err = run_anitrack("import", "anitya-db", f"sqlite:///{other}")
    assert code == 1 and "is not an Anitya database" in err
    old = tmp_path / "old.sqlite"
    old.write_bytes(Path(anitya_sqlite.url.removeprefix("sqlite:///")).read_bytes())
    with sqlite3.connect(old) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '1bf8aead6179'")
    code, _, err = run_anitrack("import", "anitya-db", f"sqlite:///{old}")
    assert code == 1 and "revision '1bf8aead6179'" in err and "ebc827e80373" in err
    code, _, err = run_anitrack("import", "anitya-db", "postgresql://nobody@127.0.0.1:1/anitya")
    assert code == 1 and "cannot reach the database at" in err
    from anitrack_core.db.models import Project, database_proxy

    with database_proxy.connection_context():
        assert Project.select().count() == 0  # nothing half-written
