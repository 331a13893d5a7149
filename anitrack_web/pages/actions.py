"""What the action pages share: paths with and without the slash, finding what a URL names, form values."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from bottle import HTTPError, redirect, request

from anitrack_core.db.models import Distro, Project

from ..access import local_path
from ..params import MAX_ID
from ..sessions import visitor

if TYPE_CHECKING:
    from anitrack_core.db.models import User


def both(path: str) -> list[str]:
    """*path* and the same path with a trailing slash."""
    return [path, path + "/"]


def project_path(project_id: int) -> str:
    return f"/project/{project_id}/"


def project_or_404(project_id: str | int) -> Project:
    """The project of a URL's ``<id>``; 404 for an unknown or malformed id."""
    text = str(project_id)
    if not text.isdigit() or int(text) > MAX_ID:
        raise HTTPError(404, "There is no such project.")
    project = Project.get_or_none(Project.id == int(text))
    if project is None:
        raise HTTPError(404, "There is no such project.")
    return project


def distro_or_404(name: str) -> Distro:
    distro = Distro.get_or_none(Distro.name_key == name.strip().casefold())
    if distro is None:
        raise HTTPError(404, f"There is no distribution named {name!r}.")
    return distro


def text(name: str, default: str = "") -> str:
    """A form field's value, stripped (bottle hands over latin-1; this decodes UTF-8)."""
    value = request.forms.getunicode(name)
    return (value if value is not None else default).strip()


def checked(name: str) -> bool:
    """A checkbox's state."""
    return (request.forms.get(name) or "") in ("1", "on", "true", "yes")


def not_archived(project: Project, user: User, action: str) -> None:
    """Refuse *action* on an archived project (403 page), except to administrators when *action* allows."""
    if project.archived:
        raise HTTPError(403, f"{project.name} is archived: you cannot {action}. To ask for it to be "
                             "unarchived, flag the project.")


def back(default: str) -> None:
    """Redirect (303) to the form's ``next`` path if it is on this site, else *default*."""
    redirect(local_path(request.forms.getunicode("next"), default), 303)


def sign_in_first(then: str) -> None:
    """For a POST-only action: send an anonymous visitor to sign in and then to *then* (a page), not back
    to the action's path, which has no page."""
    if visitor().user is None:
        redirect(f"/login/?next={quote(then, safe='/')}", 303)
