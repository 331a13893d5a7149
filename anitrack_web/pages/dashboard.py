"""The administrators' dashboard: check runs over time, the events waiting for the broker, the error rate
of each backend, and the plugins that failed to load."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bottle import Bottle
from peewee import Case, fn

from anitrack_core import events
from anitrack_core.db.models import Project, Run
from anitrack_core.db.passes import STARTED, shown

from ..access import require_admin
from .actions import both

if TYPE_CHECKING:
    from ..context import WebContext

RUNS_SHOWN = 48
CHART_WIDTH, CHART_HEIGHT, CHART_MARGIN = 720, 200, 30
BAR_MAX_WIDTH = 40


@dataclass(frozen=True)
class Bar:
    """One run drawn as a stacked bar: ok at the bottom, then errors, then rate-limited."""

    x: float
    width: float
    parts: list[tuple[str, float, float, int]]  # (kind, y, height, count)
    label: str


def chart(runs: list[Run]) -> dict[str, Any]:
    """Geometry of the runs chart (oldest on the left), computed here so the template only draws."""
    top = max([run.success_count + run.error_count + run.ratelimit_count for run in runs] + [1])
    inner_height = CHART_HEIGHT - CHART_MARGIN
    step = (CHART_WIDTH - CHART_MARGIN) / max(len(runs), 1)
    bars = []
    for index, run in enumerate(runs):
        y = float(inner_height)
        parts = []
        for kind, count in (("ok", run.success_count), ("errors", run.error_count),
                            ("ratelimited", run.ratelimit_count)):
            height = inner_height * count / top
            y -= height
            parts.append((kind, round(y, 1), round(height, 1), count))
        width = min(step * 0.8, BAR_MAX_WIDTH)
        label = run.created_on.strftime("%Y-%m-%d %H:%M") + ("" if run.state == "finished" else f" ({run.state})")
        bars.append(Bar(round(CHART_MARGIN + index * step + (step - width) / 2, 1), round(width, 1), parts, label))
    return {"bars": bars, "top": top, "width": CHART_WIDTH, "height": CHART_HEIGHT, "margin": CHART_MARGIN,
            "baseline": inner_height}


def backend_errors() -> list[dict[str, Any]]:
    """Per backend: projects, projects whose last check failed, and the rate (archived projects left out)."""
    failed = fn.SUM(Case(None, [(Project.check_successful == False, 1)], 0))  # noqa: E712
    rows = (Project.select(Project.backend, fn.COUNT(Project.id).alias("total"), failed.alias("failed"))
            .where(Project.archived == False)  # noqa: E712
            .group_by(Project.backend).order_by(Project.backend).dicts())
    found = []
    for row in rows:
        total, bad = int(row["total"]), int(row["failed"] or 0)
        found.append({"backend": row["backend"], "total": total, "failed": bad,
                      "rate": 100.0 * bad / total if total else 0.0})
    return sorted(found, key=lambda row: (-row["rate"], row["backend"]))


def add_routes(app: Bottle, ctx: WebContext) -> None:
    @app.get(both("/dashboard"))
    def dashboard() -> str:
        require_admin()
        runs = list(Run.select().order_by(Run.created_on.desc()).limit(RUNS_SHOWN))[::-1]
        broken = [info for info in ctx.plugins.info.values() if info.status not in ("loaded", "builtin")]
        # each run with how it ended: "running", or "interrupted" once its process is gone, with the cause
        states = [("running" if state == STARTED else state, cause) for state, cause in map(shown, runs)]
        return ctx.render("dashboard.html", runs=runs, states=states, chart=chart(runs), backlog=events.backlog(),
                          backends=backend_errors(), broken=broken)
