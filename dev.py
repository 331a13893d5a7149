#!/usr/bin/env python3
"""The two set-up commands of the README, needing only Python 3.11+ and pip.

    ./dev.py serve [ARGS]   install everything into ./.venv, create or upgrade the
                            database, then run `anitrack serve ARGS` on the embedded
                            defaults (SQLite in the data dir, in-memory event bus)
    ./dev.py test [ARGS]    install everything into ./.venv, then run the whole test
                            suite with tox (SQLite and PostgreSQL environments,
                            in parallel); ARGS, if any, go to tox instead
                            (e.g. `-e sqlite -- tests/web`)
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")


def _run(*argv: str | Path) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    result = subprocess.run([str(a) for a in argv], cwd=ROOT)
    if result.returncode:
        sys.exit(result.returncode)


def _ensure_venv() -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"anitrack needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not (BIN / "python").exists():
        print(f"+ creating virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)


def _plugin_dirs() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))


def serve(args: list[str]) -> None:
    _ensure_venv()
    editable = [arg for path in [ROOT, *_plugin_dirs()] for arg in ("-e", path)]
    _run(BIN / "python", "-m", "pip", "install", "--quiet", *editable)
    _run(BIN / "anitrack", "db", "upgrade")
    os.execv(BIN / "anitrack", [str(BIN / "anitrack"), "serve", *args])


def test(args: list[str]) -> None:
    _ensure_venv()
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "tox>=4.20")
    # no ARGS: both environments at once (`tox p`), their installs and servers overlapping on the cores
    os.execv(BIN / "tox", [str(BIN / "tox"), *(args or ["p"])])


def main() -> None:
    commands = {"serve": serve, "test": test}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
