"""Web pages benchmark: the projects list and the project page under the real server.

    .venv/bin/python bench/pages.py [--projects 10000] [--duration 10] [--connections 8]

The same harness as bench/api.py (its seeding, server, load generators, in-process
SQL count and report; every option of it applies), with the scenarios of the
read pages: ``/projects/`` and ``/project/<id>/`` must each serve at least 500
requests/s with 8 concurrent clients on 10,000 projects in SQLite.
"""

from __future__ import annotations

import math
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from api import Scenario, main  # noqa: E402 (bench/ is not a package)

PAGE_TARGET = 500


def scenarios(projects: int) -> list[Scenario]:
    pages = max(1, math.ceil(projects / 50))
    return [
        Scenario("/projects/ first page", "/projects/", min_rps=PAGE_TARGET),
        Scenario("/projects/ random page, by latest", "/projects/?sort=-latest&page={n}", rand=(1, pages),
                 note="deep OFFSETs, another order"),
        Scenario("/project/<id>/ random", "/project/{n}/", rand=(1, projects), min_rps=PAGE_TARGET),
        Scenario("/projects/search/?pattern=py", "/projects/search/?pattern=py"),
        Scenario("/ home", "/"),
    ]


def check_pages(base: str, scs: list[Scenario], projects: int) -> None:
    """Each scenario must answer a 200 HTML page with a heading and a table, or the figures mean nothing."""
    for sc in scs:
        path = sc.path.replace("{n}", str(sc.rand[1] if sc.rand else 1))
        with urllib.request.urlopen(base + path, timeout=10) as resp:
            body = resp.read().decode()
            if resp.status != 200 or "<h1" not in body:
                raise RuntimeError(f"{path}: answered {resp.status} without a page heading")
        if sc.path.startswith("/projects/") and "<table" not in body:
            raise RuntimeError(f"{path}: no table of projects")


if __name__ == "__main__":
    sys.exit(main(make_scenarios=scenarios, check=check_pages,
                  description="Benchmark the anitrack read pages under the real server."))
