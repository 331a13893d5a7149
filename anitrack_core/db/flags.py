"""Flags: people report that something is wrong with a project; administrators close the reports."""

from __future__ import annotations

from .. import events
from ..errors import FieldError
from ..events import messages
from .models import Project, ProjectFlag, utcnow

REASON_MAX = 2000
STATES = ("open", "closed")


def flag_project(project: Project, reason: str, *, user: str, agent: str | None = None) -> ProjectFlag:
    """Flag *project* (archived ones too: it is how one asks to unarchive) for *reason*.

    *user* is the reporter's e-mail, stored with the flag; announced as
    ``project.flag`` by *agent* (default *user*).

    :raises FieldError: the reason is empty or longer than :data:`REASON_MAX`.
    """
    reason = (reason or "").strip()
    if not reason:
        raise FieldError("reason", "Say what is wrong with the project.")
    if len(reason) > REASON_MAX:
        raise FieldError("reason", f"At most {REASON_MAX} characters (this one has {len(reason)}).")
    with ProjectFlag._meta.database.atomic():
        flag = ProjectFlag.create(project=project.id, reason=reason, user=user, state="open")
        events.record("project.flag", messages.project_flag(project, reason, agent or user), project_id=project.id)
    return flag


def set_flag_state(flag: ProjectFlag, state: str, *, agent: str | None = None) -> bool:
    """Open or close *flag*; False (and nothing announced) when it is already in *state*.

    Announced as ``project.flag.set`` by *agent*.
    """
    if state not in STATES:
        raise FieldError("state", f"state must be one of: {', '.join(STATES)}")
    if flag.state == state:
        return False
    project_name = Project.select(Project.name).where(Project.id == flag.project_id).scalar() or ""
    with ProjectFlag._meta.database.atomic():
        flag.state, flag.updated_on = state, utcnow()
        flag.save(only=[ProjectFlag.state, ProjectFlag.updated_on])
        events.record("project.flag.set",
                      messages.flag_set(flag.id, state, project_name, agent or events.SYSTEM_AGENT),
                      project_id=flag.project_id)
    return True
