"""The real Anitya, from PyPI, in a throwaway virtualenv cached for the session (and across sessions).

``anitya_python`` installs ``anitya==ANITYA_VERSION`` (with waitress to serve it and psycopg2 for
PostgreSQL) into ``.pytest_cache/d/anitya-<version>-venv``; when pip cannot reach an index the tests
are skipped, under CI they fail.  ``anitya_sqlite`` / ``anitya_postgres`` are Anitya databases made
and filled by Anitya's own code (tests/importer/anitya_side.py), and ``serve_anitya(url)`` serves
Anitya's own app on them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from anitrack_core.testing import skip_or_fail
from tests.servers.locking import file_lock

ANITYA_VERSION = "2.3.0"
SIDE = Path(__file__).with_name("anitya_side.py")


def _side_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANITRACK_", "ANITYA_"))}
    env["TZ"] = "UTC"
    return env


@pytest.fixture(scope="session")
def anitya_python(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider: then per session
    name = f"anitya-{ANITYA_VERSION}-venv"
    venv = Path(cache.mkdir(name)) if cache is not None else tmp_path_factory.mktemp(name)
    python = venv / "bin" / "python"
    marker = venv / "installed"
    with file_lock(venv.with_name(name + ".lock")):  # xdist workers share the cached venv: one installs it
        if marker.exists() and python.exists():
            return python
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               f"anitya=={ANITYA_VERSION}", "waitress", "psycopg2-binary"],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            skip_or_fail(f"cannot install anitya {ANITYA_VERSION} from the package index: "
                         f"{(done.stderr.strip().splitlines() or ['pip failed'])[-1]}")
        marker.write_text(ANITYA_VERSION)
    return python


@dataclass
class AnityaDb:
    url: str
    #: what anitya_side.py fill wrote: tokens by username, the Alembic revision, some project ids
    facts: dict[str, Any]


def _fill(python: Path, url: str, out: Path) -> AnityaDb:
    import json

    done = subprocess.run([str(python), str(SIDE), "fill", url, str(out)], capture_output=True, text=True,
                          env=_side_env(), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return AnityaDb(url, json.loads(out.read_text()))


@pytest.fixture(scope="session")
def anitya_sqlite(anitya_python: Path, tmp_path_factory: pytest.TempPathFactory) -> AnityaDb:
    where = tmp_path_factory.mktemp("anitya-sqlite")
    return _fill(anitya_python, f"sqlite:///{where / 'anitya.sqlite'}", where / "facts.json")


@pytest.fixture(scope="session")
def anitya_postgres(anitya_python: Path, _anitrack_postgres_server: Any,
                    tmp_path_factory: pytest.TempPathFactory) -> AnityaDb:
    if isinstance(_anitrack_postgres_server, Exception):
        skip_or_fail(f"PostgreSQL unavailable: {_anitrack_postgres_server}")
    url = _anitrack_postgres_server.create_database("anitya_" + uuid.uuid4().hex[:8])
    return _fill(anitya_python, url, tmp_path_factory.mktemp("anitya-pg") / "facts.json")


@pytest.fixture(scope="session")
def serve_anitya(anitya_python: Path) -> Iterator[Callable[[str], str]]:
    """``serve_anitya(db_url)``: Anitya's app on a free loopback port; returns its base URL."""
    running: dict[str, tuple[subprocess.Popen[str], str]] = {}

    def serve(url: str) -> str:
        if url not in running:
            process = subprocess.Popen([str(anitya_python), str(SIDE), "serve", url], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True, env=_side_env())
            port = ""
            for line in process.stdout or ():
                if line.startswith("PORT "):
                    port = line.split()[1]
                    break
            assert port.isdigit(), "Anitya's server did not start"
            running[url] = (process, f"http://127.0.0.1:{port}")
        return running[url][1]

    yield serve
    for process, _ in running.values():
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def anitya_bulk(anitya_python: Path, tmp_path: Path) -> Callable[[int], str]:
    """``anitya_bulk(count)``: an Anitya SQLite database of *count* plain projects; returns its URL."""

    def make(count: int) -> str:
        url = f"sqlite:///{tmp_path / 'bulk.sqlite'}"
        done = subprocess.run([str(anitya_python), str(SIDE), "bulk", url, str(count)], capture_output=True,
                              text=True, env=_side_env(), timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return url

    return make
