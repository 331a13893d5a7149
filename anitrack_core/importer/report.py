"""What an import did: counts per kind of record, and every row it could not take, with why."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..errors import AnitrackError

#: the kinds of records, in the order the report lists them
KINDS = ("distros", "users", "tokens", "projects", "versions", "packages", "flags")
#: how many problems of one kind the text report lists before summing up the rest
SHOWN_PER_REASON = 20


@dataclass
class Problem:
    """A row not imported as it was, or a name anitrack lacks."""

    kind: str
    #: the row in the source's words: ``project 12 'requests' (pypi)``
    row: str
    #: why, and what was done instead
    reason: str
    #: False: the row was imported anyway (changed as *reason* says, or with an unknown name)
    skipped: bool = True


@dataclass
class ImportReport:
    """Counts of new, changed and unchanged rows per kind, and the problems met."""

    source: str
    new: Counter[str] = field(default_factory=Counter)
    changed: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    #: the project id an interrupted earlier run had reached (None: started from the beginning)
    resumed_after: int | str | None = None
    notes: list[str] = field(default_factory=list)

    def problem(self, kind: str, row: str, reason: str, *, skipped: bool = True) -> None:
        self.problems.append(Problem(kind, row, reason, skipped))

    def skipped(self, kind: str) -> int:
        return sum(1 for p in self.problems if p.kind == kind and p.skipped)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "resumed_after": self.resumed_after,
            "counts": {kind: {"new": self.new[kind], "changed": self.changed[kind],
                              "unchanged": self.unchanged[kind], "skipped": self.skipped(kind)} for kind in KINDS},
            "problems": [{"kind": p.kind, "row": p.row, "reason": p.reason, "skipped": p.skipped}
                         for p in self.problems],
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        """The report as text, for the terminal."""
        out = [f"import from {self.source}"]
        if self.resumed_after is not None:
            out.append(f"resumed an interrupted import after {self.resumed_after}")
        out.append(f"{'':<10}{'new':>10}{'changed':>10}{'unchanged':>11}{'skipped':>10}")
        for kind in KINDS:
            out.append(f"{kind:<10}{self.new[kind]:>10}{self.changed[kind]:>10}{self.unchanged[kind]:>11}"
                       f"{self.skipped(kind):>10}")
        by_reason: dict[tuple[str, bool], list[Problem]] = {}
        for problem in self.problems:
            by_reason.setdefault((problem.reason, problem.skipped), []).append(problem)
        for (reason, skipped), problems in by_reason.items():
            out.append(f"{'skipped' if skipped else 'note'}: {reason} ({len(problems)}):")
            out.extend(f"  {p.row}" for p in problems[:SHOWN_PER_REASON])
            if len(problems) > SHOWN_PER_REASON:
                out.append(f"  ... and {len(problems) - SHOWN_PER_REASON} more (--json lists them all)")
        out.extend(self.notes)
        return out


class SourceError(AnitrackError):
    """The source cannot be read: unreachable, not Anitya's, or a schema version not supported."""
