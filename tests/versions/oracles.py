"""Independent implementations the version schemes are checked against.

An oracle that is missing skips its tests, except on CI (``CI`` set to
anything but ``0``/``false``/``no``), where a missing oracle fails them: a CI run
must not pass by testing less.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
from types import ModuleType
from typing import NoReturn

import pytest

SYSTEM_PYTHON = "/usr/bin/python3"

#: runs under the system python: reads JSON lists of [a, b] pairs, one list a
#: line, and answers each line with the list of rpm.labelCompare results
#: (null where rpm refuses a version, such as the empty string)
_RPM_SERVER = """
import json, sys, rpm
for line in sys.stdin:
    answers = []
    for a, b in json.loads(line):
        try:
            answers.append(rpm.labelCompare(("0", a, "0"), ("0", b, "0")))
        except ValueError:
            answers.append(None)
    sys.stdout.write(json.dumps(answers) + "\\n")
    sys.stdout.flush()
"""


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def oracle_unavailable(reason: str) -> NoReturn:
    """Skip the test for *reason*, or fail it when running on CI."""
    if on_ci():
        pytest.fail(f"{reason} (CI is set: oracles are required there)", pytrace=False)
    pytest.skip(reason)


def require_module(name: str, hint: str) -> ModuleType:
    """The module *name* of the test environment, or skip/fail with *hint*."""
    try:
        return importlib.import_module(name)
    except ImportError:
        oracle_unavailable(f"the oracle module {name!r} is not installed ({hint})")


class RpmOracle:
    """The real rpm, in one long-lived subprocess of the system python."""

    def __init__(self) -> None:
        if not os.path.exists(SYSTEM_PYTHON):
            oracle_unavailable(f"{SYSTEM_PYTHON} does not exist: the rpm oracle needs it")
        probe = subprocess.run([SYSTEM_PYTHON, "-c", "import rpm"], capture_output=True)
        if probe.returncode != 0:
            oracle_unavailable(
                f"{SYSTEM_PYTHON} cannot import rpm: install the Debian package python3-rpm"
            )
        self.process = subprocess.Popen(
            [SYSTEM_PYTHON, "-c", _RPM_SERVER],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
        )

    def label_compare(self, pairs: list[tuple[str, str]]) -> list[int | None]:
        """rpm.labelCompare of each (a, b) as versions, in one round trip."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(pairs) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the rpm oracle process died")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=10)
