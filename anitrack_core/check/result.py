"""What a check reports to the plugins that observe it (``anitrack_project_checked``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class CheckedProject:
    """A read-only snapshot of a project, taken after its check."""

    id: int | None  # None for a temporary (dry-run) project
    name: str
    homepage: str
    backend: str
    ecosystem_name: str
    latest_version: str | None
    error_counter: int
    check_successful: bool | None


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check of one project."""

    #: versions found that were not stored before, newest first (display form)
    new_versions: list[str] = field(default_factory=list)
    #: every version the upstream returned after filtering, newest first
    found_versions: list[str] = field(default_factory=list)
    #: the error message when the check failed, else None
    error: str | None = None
    #: when the upstream rate limit resets, if the check hit one (UTC)
    rate_limited_until: datetime | None = None
    #: True when nothing was saved
    dry_run: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and self.rate_limited_until is None
