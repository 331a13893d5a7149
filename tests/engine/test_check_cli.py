"""`anitrack check` as an operator runs it (installed custom/folder plugins, loopback upstream)."""

import json

PAGE = '<a href="foo-1.0.tar.gz">x</a>\n<a href="foo-1.2rc1.tar.gz">y</a>\n<a href="foo-1.1.tar.gz">z</a>\n'


def test_dry_run_of_a_temporary_project(run_anitrack, fake_upstream):
    fake_upstream.route("/dl/", PAGE)
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "custom", "--name", "foo",
                                  "--homepage", "https://foo.example/", "--version-url", fake_upstream.url("/dl/"),
                                  "--json")
    assert code == 0, err
    assert json.loads(out) == {"versions": ["1.2rc1", "1.1", "1.0"], "latest_version": "1.2rc1",
                               "stable_versions": ["1.1", "1.0"]}


def test_dry_run_failure_is_a_json_error_and_nonzero_exit(run_anitrack, fake_upstream):
    fake_upstream.route("/dl/", "nothing here")
    code, out, _ = run_anitrack("check", "--dry-run", "--backend", "custom", "--name", "foo",
                                "--homepage", "https://foo.example/", "--version-url", fake_upstream.url("/dl/"),
                                "--json")
    assert code == 1
    assert "no upstream version found" in json.loads(out)["error"]


def test_dry_run_refuses_private_addresses_unless_allowed(run_anitrack, fake_upstream, monkeypatch):
    monkeypatch.setenv("ANITRACK_ALLOW_PRIVATE_UPSTREAMS", "0")
    fake_upstream.route("/dl/", PAGE)
    code, out, _ = run_anitrack("check", "--dry-run", "--backend", "custom", "--name", "foo",
                                "--homepage", "https://foo.example/", "--version-url", fake_upstream.url("/dl/"),
                                "--json")
    assert code == 1 and "127.0.0.1" in json.loads(out)["error"]
    assert fake_upstream.requests == []


def test_dry_run_bad_input(run_anitrack):
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "nope", "--name", "x", "--homepage", "h",
                                  "--json")
    assert code == 1 and "unknown backend 'nope'" in json.loads(out)["error"]
    code, out, err = run_anitrack("check", "--dry-run", "--name", "x", "--json")
    assert code == 1 and "--backend" in json.loads(out)["error"]
    code, out, err = run_anitrack("check", "--dry-run", "--backend", "custom", "--name", "x", "--homepage", "h",
                                  "--version-url", "https://x", "--regex", "(unclosed", "--json")
    assert code == 1 and "invalid regular expression" in json.loads(out)["error"]


def test_check_pass_prints_a_summary(run_anitrack, fake_upstream, anitrack_env):
    fake_upstream.route("/dl/", PAGE)
    assert run_anitrack("db", "upgrade")[0] == 0
    from anitrack_core.db import projects
    from anitrack_core.runtime import load_runtime

    runtime = load_runtime()
    with runtime.db.connection_context():
        for index in range(3):
            projects.create_project(runtime.plugins, name="foo", homepage=f"https://foo{index}.example/",
                                    backend="custom", version_url=fake_upstream.url("/dl/"))
    code, out, err = run_anitrack("check")
    assert code == 0, err
    from anitrack_core.db.models import Project
    with runtime.db.connection_context():
        logs = [p.logs for p in Project.select()]
    assert out.startswith("checked 3, ok 3, errors 0, ratelimited 0"), logs
    assert "checks: 3/3 (100%)" in err  # the progress, as plain lines when stderr is not a terminal
    code, out, _ = run_anitrack("check", "--project", "1")
    assert code == 0 and out.startswith("checked 1, ok 1")
