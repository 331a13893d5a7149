"""Administrators: delete a project, archive or unarchive it, delete one or all of its versions.

Each GET is a confirmation page; its POST does it.  Archiving is an edit of
``archived`` only (the existing service also overwrote version_filter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from bottle import Bottle, HTTPError, redirect

from anitrack_core.db import projects
from anitrack_core.db.models import Distro, Package, Project, ProjectVersion

from ..access import check_csrf, require_admin
from ..queries import ordered
from ..sessions import flash
from .actions import both, project_or_404, project_path, sign_in_first

if TYPE_CHECKING:
    from ..context import WebContext


def _state(value: str) -> bool:
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise HTTPError(404, "The state must be true or false.")
    return lowered == "true"


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def confirm(project: Project, *, title: str, question: str, action: str, button: str,
                details: list[str] | None = None) -> str:
        return ctx.render("confirm.html", title=title, question=question, action=action, button=button,
                          cancel=project_path(project.id), details=details or [])

    # ---- delete the project ----

    @app.get(both("/project/<project_id>/delete"))
    def confirm_delete(project_id: str) -> str:
        require_admin()
        project = project_or_404(project_id)
        mappings = [f"{distro}: {name}" for distro, name in
                    Package.select(Distro.name, Package.package_name).join(Distro)
                    .where(Package.project == project.id).order_by(ordered(Distro.name_key)).tuples()]
        versions = ProjectVersion.select().where(ProjectVersion.project == project.id).count()
        details = [f"Homepage: {project.homepage}", f"Backend: {project.backend}",
                   f"Latest version: {project.latest_version or 'none'} ({versions} versions stored)",
                   "Archived" if project.archived else "Not archived",
                   *(["Mappings: " + "; ".join(mappings)] if mappings else ["No mapping"])]
        return confirm(project, title=f"Delete {project.name}",
                       question=f"Delete the project {project.name} with its versions, mappings and flags? "
                                "This cannot be undone.",
                       action=f"/project/{project.id}/delete", button="Delete project", details=details)

    @app.post(both("/project/<project_id>/delete"))
    def delete_project(project_id: str) -> None:
        admin = require_admin()
        check_csrf()
        project = project_or_404(project_id)
        projects.delete_project(project, agent=admin.email)
        flash(f"The project {project.name} was deleted.", "success")
        redirect("/projects/", 303)

    # ---- archive ----

    @app.post(both("/project/<project_id>/archive/set/<state>"))
    def set_archived(project_id: str, state: str) -> None:
        sign_in_first(project_path(project_id))
        admin = require_admin()
        check_csrf()
        project = project_or_404(project_id)
        archived = _state(state)
        if projects.update_project(ctx.plugins, project, agent=admin.email, archived=archived):
            outcome = "now archived: it is no longer checked or editable" if archived else "no longer archived"
            flash(f"{project.name} is {outcome}.", "success")
        else:
            flash(f"{project.name} was already {'archived' if archived else 'not archived'}.", "info")
        redirect(project_path(project.id), 303)

    # ---- versions ----

    @app.get(both("/project/<project_id>/delete/versions"))
    def confirm_delete_all(project_id: str) -> str:
        require_admin()
        project = project_or_404(project_id)
        count = ProjectVersion.select().where(ProjectVersion.project == project.id).count()
        return confirm(project, title=f"Delete all versions of {project.name}",
                       question=f"Delete all {count} versions of {project.name}? The next check finds again "
                                "those the upstream still has.",
                       action=f"/project/{project.id}/delete/versions", button="Delete all versions")

    @app.post(both("/project/<project_id>/delete/versions"))
    def delete_all(project_id: str) -> None:
        admin = require_admin()
        check_csrf()
        project = project_or_404(project_id)
        deleted = projects.delete_versions(ctx.plugins, project, agent=admin.email)
        flash(f"{len(deleted)} version{'' if len(deleted) == 1 else 's'} of {project.name} deleted." if deleted
              else f"{project.name} had no version to delete.", "success" if deleted else "info")
        redirect(project_path(project.id), 303)

    def version_or_404(project: Project, version: str) -> str:
        if not ProjectVersion.select().where((ProjectVersion.project == project.id)
                                             & (ProjectVersion.version == version)).exists():
            raise HTTPError(404, f"{project.name} has no version {version!r}.")
        return version

    @app.get(both("/project/<project_id>/delete/<version>"))
    def confirm_delete_version(project_id: str, version: str) -> str:
        require_admin()
        project = project_or_404(project_id)
        version = version_or_404(project, version)
        return confirm(project, title=f"Delete version {version} of {project.name}",
                       question=f"Delete the version {version} of {project.name}? The next check finds it again "
                                "if the upstream still has it.",
                       action=f"/project/{project.id}/delete/{quote(version, safe='')}", button="Delete version")

    @app.post(both("/project/<project_id>/delete/<version>"))
    def delete_version(project_id: str, version: str) -> None:
        admin = require_admin()
        check_csrf()
        project = project_or_404(project_id)
        version = version_or_404(project, version)
        projects.delete_versions(ctx.plugins, project, [version], agent=admin.email)
        flash(f"Version {version} of {project.name} was deleted.", "success")
        redirect(project_path(project.id), 303)
