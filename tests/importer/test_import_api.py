"""`anitrack import anitya-api` against a real Anitya's running API."""

from __future__ import annotations

import json

from .compare import differences, served_anitrack


def _import(run_anitrack, *argv):
    code, out, err = run_anitrack("import", "anitya-api", *argv, "--json", "--quiet")
    assert code == 0, err
    return json.loads(out)


def test_import_from_anitya_api_answers_like_anitya(anitya_sqlite, serve_anitya, run_anitrack):
    anitya = serve_anitya(anitya_sqlite.url)
    assert run_anitrack("db", "upgrade")[0] == 0
    report = _import(run_anitrack, anitya, "--rate", "1000", "--items-per-page", "5", "--version-dates")
    counts = report["counts"]
    assert counts["projects"] == {"new": 13, "changed": 0, "unchanged": 0, "skipped": 0}
    # Anitya's packages page holding the package whose project is gone fails (HTTP 500): read item by item,
    # only that package is lost; the one of distro 'debian' (merged into 'Debian') is the mapping already there
    assert counts["packages"] == {"new": 5, "changed": 0, "unchanged": 1, "skipped": 1}, report["problems"]
    assert any("HTTP 500" in p["reason"] for p in report["problems"] if p["kind"] == "packages")
    with served_anitrack() as anitrack:
        found = differences(anitya, anitrack)
    twin = anitya_sqlite.facts["twin"]
    assert {d[:3] for d in found} == {(twin, "projects", "ecosystem"), (3, "v1 project", "packages")}, found
    again = _import(run_anitrack, anitya, "--rate", "1000", "--items-per-page", "5", "--version-dates")
    assert all(c["new"] == 0 and c["changed"] == 0 for c in again["counts"].values()), again["counts"]


def test_an_unreachable_or_foreign_api_is_named(run_anitrack, fake_upstream):
    assert run_anitrack("db", "upgrade")[0] == 0
    code, _, err = run_anitrack("import", "anitya-api", "http://127.0.0.1:9/", "--rate", "1000")
    assert code == 1 and "cannot reach http://127.0.0.1:9" in err
    fake_upstream.route("/api/v2/projects/", "<html>not Anitya</html>")
    code, _, err = run_anitrack("import", "anitya-api", fake_upstream.url("/"), "--rate", "1000")
    assert code == 1 and "does not answer like Anitya's API" in err
