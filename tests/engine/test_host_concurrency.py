"""Requests a pass has in flight to one host: the operator's bound for it, else its backend's, else check_per_host.

Each test runs `anitrack check` over projects whose upstream (a loopback fake)
answers after a pause, and counts the requests it had in flight at once.
"""

from __future__ import annotations

import json
import threading
import time

from anitrack_core.testing_upstream import Answer

PAGE = '<a href="foo-1.0.tar.gz">foo 1.0</a>\n'
PAUSE = 0.2


class InFlight:
    """A route that answers *answer* after :data:`PAUSE` seconds, noting the most requests it held at once."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.now = self.most = 0
        self._lock = threading.Lock()

    def __call__(self, _seen: object) -> Answer:
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(PAUSE)
        with self._lock:
            self.now -= 1
        return self.answer


def _add_projects(run_anitrack, count: int, backend: str, version_url: str | None = None) -> None:
    assert run_anitrack("db", "upgrade")[0] == 0
    from anitrack_core.db import projects
    from anitrack_core.runtime import load_runtime

    runtime = load_runtime()
    with runtime.db.connection_context():
        for index in range(count):
            projects.create_project(runtime.plugins, name=f"foo{index}" if backend != "custom" else "foo",
                                    homepage=f"https://foo{index}.example/", backend=backend,
                                    version_url=version_url)
    runtime.db.close_all()


def _pypi_projects(run_anitrack, fake_upstream, count: int) -> InFlight:
    """*count* PyPI projects whose JSON API is the fake upstream (setting ``pypi.url``)."""
    route = InFlight(Answer(200, json.dumps({"info": {"version": "1.0"}, "releases": {"1.0": []}}),
                            {"Content-Type": "application/json"}))
    for index in range(count):
        fake_upstream.route(f"/pypi/foo{index}/json", route)
    _add_projects(run_anitrack, count, "PyPI")
    return route


def _config(tmp_path, monkeypatch, text: str) -> None:
    path = tmp_path / "anitrack.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("ANITRACK_CONFIG", str(path))


def test_a_project_web_server_gets_check_per_host(run_anitrack, fake_upstream):
    route = InFlight(Answer(200, PAGE))
    fake_upstream.route("/dl/", route)
    _add_projects(run_anitrack, 12, "custom", fake_upstream.url("/dl/"))
    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith("checked 12, ok 12"), (out, err)
    assert route.most == 4


def test_an_index_service_gets_the_bound_its_backend_declares(run_anitrack, fake_upstream, tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, f'[pypi]\nurl = "{fake_upstream.base}"\n')
    route = _pypi_projects(run_anitrack, fake_upstream, 24)
    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith("checked 24, ok 24"), (out, err)
    assert route.most > 4  # PyPI declares 64 for the host of pypi.url: more than check_per_host at once


def test_the_operators_bound_for_a_host_wins(run_anitrack, fake_upstream, tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, f'[pypi]\nurl = "{fake_upstream.base}"\n\n'
                                   '[check.host_concurrency]\n"127.0.0.1" = 2\n')
    route = _pypi_projects(run_anitrack, fake_upstream, 6)
    code, out, err = run_anitrack("check")
    assert code == 0 and out.startswith("checked 6, ok 6"), (out, err)
    assert route.most == 2


def test_a_bad_bound_is_a_config_error_naming_the_host(run_anitrack, tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, '[check.host_concurrency]\n"pypi.org" = 0\n')
    code, out, err = run_anitrack("check")
    assert code != 0
    assert "setting 'check.host_concurrency'" in err and "'pypi.org' the bound 0" in err
