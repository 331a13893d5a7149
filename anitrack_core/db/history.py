"""A project's history, kept from the events about it.

:func:`note` runs inside :func:`anitrack_core.events.record` for every event
that names a project, so whatever is announced is also remembered, with one
rule in one place.  The bodies are the events' own (see
:mod:`anitrack_core.events.messages`); a history row keeps only what a person
reads: the agent and what changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from . import bulk
from .models import ProjectChange, utcnow

#: per topic, the ``message`` keys worth keeping (the rest repeats the project)
_KEPT = {
    "project.add": (),
    "project.edit": ("fields", "changes"),
    "project.remove": (),
    "project.flag": ("reason",),
    "project.flag.set": ("flag", "state"),
    "project.map.new": ("distro", "new"),
    "project.map.update": ("distro", "prev", "new", "edited"),
    "project.map.remove": ("distro", "package_name"),
    "project.version.update.v2": ("upstream_versions", "old_version"),
    "project.version.remove.v2": ("versions",),
}
#: topics whose news another topic of the same change already carries
_SKIPPED = {"project.version.update", "project.version.remove"}


def note(topic: str, body: dict[str, Any], project_id: int) -> None:
    """Add the history row of the event *topic* about project *project_id* (in the caller's transaction)."""
    note_many([(topic, body, project_id)])


def note_many(events: Iterable[tuple[str, dict[str, Any], int]]) -> None:
    """:func:`note` for each (topic, body, project id) of *events*, in one statement."""
    now = utcnow()
    rows = []
    for topic, body, project_id in events:
        if topic in _SKIPPED:
            continue
        message = body.get("message") or {}
        project = body.get("project") or {}
        name = project.get("name") or message.get("project") or ""
        if isinstance(name, dict):
            name = name.get("name", "")
        details = {key: message[key] for key in _KEPT.get(topic, ()) if key in message}
        rows.append((project_id, str(name)[:200], topic, message.get("agent"), json.dumps(details, ensure_ascii=True),
                     now))
    if rows:
        bulk.insert_rows(ProjectChange, _ROW, rows)


_ROW = (ProjectChange.project_id, ProjectChange.project_name, ProjectChange.topic, ProjectChange.agent,
        ProjectChange.details, ProjectChange.created_on)


@dataclass(frozen=True)
class Change:
    """One history entry as pages show it."""

    topic: str
    agent: str | None
    details: dict[str, Any]
    created_on: datetime
    project_id: int
    project_name: str


def _change(row: ProjectChange) -> Change:
    return Change(row.topic, row.agent, json.loads(row.details or "{}"), row.created_on, row.project_id,
                  row.project_name)


def project_history(project_id: int, limit: int = 100) -> list[Change]:
    """The latest changes of one project, newest first."""
    rows = (ProjectChange.select().where(ProjectChange.project_id == project_id)
            .order_by(ProjectChange.id.desc()).limit(limit))
    return [_change(row) for row in rows]


def recent_changes(limit: int = 50, offset: int = 0, topics: Iterable[str] | None = None) -> list[Change]:
    """The latest changes of every project, newest first (optionally of some topics only)."""
    query = ProjectChange.select()
    if topics is not None:
        query = query.where(ProjectChange.topic.in_(list(topics)))
    return [_change(row) for row in query.order_by(ProjectChange.id.desc()).limit(limit).offset(offset)]
