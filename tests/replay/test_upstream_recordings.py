"""Every backend against real, recorded upstream answers (``shared/upstream-recordings``).

One test per case of the recordings' ``manifest.json`` (the test id is the
case id): the case's project is checked as a temporary project, exactly as
``anitrack check --dry-run ... --json`` does it (:func:`check_temporary` over
a :class:`Checker` built from the installed plugins), with an HTTP client
that answers from the case's cassette; the versions, the latest version, or
the error must be what the case expects, and no request may have gone
outside the cassette.

The recordings are read in place (never copied into this repository):
``$ANITRACK_RECORDINGS``, else ``shared/upstream-recordings`` beside the
repository.  Without them the module is skipped, except under CI where it
fails; likewise a case whose backend is not installed.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import os
from pathlib import Path

import pytest

from anitrack_core.check.runner import Checker
from anitrack_core.check.spec import ProjectSpec
from anitrack_core.check.temporary import check_temporary
from anitrack_core.errors import AnitrackError
from anitrack_core.runtime import load_runtime
from anitrack_core.testing import skip_or_fail
from anitrack_core.testing_replay import RECORDINGS_ENV, ReplayClient

REPO_ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = Path(os.environ.get(RECORDINGS_ENV) or REPO_ROOT.parent / "shared" / "upstream-recordings")
MANIFEST = RECORDINGS / "manifest.json"
MANIFEST_FORMAT = "anitrack-replay-manifest/1"
ABSENT = f"no upstream recordings at {RECORDINGS} (set {RECORDINGS_ENV} to their directory)"
#: the project fields a case may set, all of them fields of a temporary project
PROJECT_FIELDS = {"name", "homepage", "version_url", "regex", "version_scheme", "version_prefix",
                  "pre_release_filter", "version_filter", "releases_only", "insecure"}
#: the GitHub token a case gets when its config asks for one (any value works under replay)
DUMMY_TOKEN = "dummy-replay-token"

if not MANIFEST.is_file() and not os.environ.get("CI"):
    pytest.skip(ABSENT, allow_module_level=True)


def _manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.is_file() else {"cases": []}


MANIFEST_DATA = _manifest()
CASES = MANIFEST_DATA["cases"]


def test_recordings_are_present():
    if not MANIFEST.is_file():
        skip_or_fail(ABSENT)
    assert MANIFEST_DATA.get("format") == MANIFEST_FORMAT
    assert CASES, "the manifest lists no case"
    assert len({case["id"] for case in CASES}) == len(CASES), "case ids must be unique"


@pytest.fixture(scope="module")
def runtimes(tmp_path_factory):
    """The runtime of the installed plugins, one per GitHub token setting (None: no token)."""
    made = {}
    data_dir = tmp_path_factory.mktemp("replay-data")

    def get(token):
        if token not in made:
            environ = {"ANITRACK_DATA_DIR": str(data_dir)}
            if token is not None:
                environ["ANITRACK_GITHUB_TOKEN"] = token
            made[token] = load_runtime(environ, database=False)
        return made[token]

    return get


def _spec(case) -> ProjectSpec:
    unknown = set(case["project"]) - PROJECT_FIELDS
    assert not unknown, f"the case sets project fields this test does not know: {sorted(unknown)}"
    fields = {f.name for f in dataclasses.fields(ProjectSpec)}
    assert PROJECT_FIELDS <= fields
    return ProjectSpec(id=None, backend=case["backend"], **case["project"])


def _dry_run(checker: Checker, spec: ProjectSpec) -> dict:
    """What ``anitrack check --dry-run --json`` prints for *spec*."""
    try:
        return check_temporary(checker, spec)
    except AnitrackError as exc:
        return {"error": str(exc)}


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case, runtimes):
    cassette = RECORDINGS / MANIFEST_DATA.get("cassette_dir", "cassettes") / case["cassette"]
    assert cassette.is_file(), f"cassette {case['cassette']} is missing"
    if case.get("cassette_sha256"):
        assert hashlib.sha256(cassette.read_bytes()).hexdigest() == case["cassette_sha256"], "cassette changed"

    config = case.get("config") or {}
    token = config["github_access_token"] if "github_access_token" in config else DUMMY_TOKEN
    runtime = runtimes(None if token is None else DUMMY_TOKEN)
    if runtime.plugins.backends.find(case["backend"]) is None:
        broken = [f"{info.name}: {info.error}" for info in runtime.plugins.info.values() if info.status == "broken"]
        skip_or_fail(f"backend {case['backend']} not installed"
                     + (f" (broken plugins: {'; '.join(broken)})" if broken else ""))

    with ReplayClient(cassette) as client:
        result = _dry_run(Checker(runtime, http=client), _spec(case))
        misses = list(client.misses)

    assert not misses, f"requests outside the cassette: {misses}; result: {result}"
    if case.get("expect_error") or case.get("expect") == "error":
        assert result.get("error"), f"expected an error, got {result}"
        return
    assert "error" not in result, result["error"]
    expected = case["expect_versions"]
    if case.get("order") == "unordered":
        assert collections.Counter(result["versions"]) == collections.Counter(expected)
    else:
        assert result["versions"] == expected
    if "expect_latest" in case:
        assert result["latest_version"] == case["expect_latest"]
