"""Mapping a project to distribution packages: add and edit (signed-in people), delete (administrators).

Mappings of an archived project cannot be added or edited (the existing
service only hid the button).  A package already mapped to another project
brings the form back naming that project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from bottle import Bottle, HTTPError, redirect, request

from anitrack_core.db import packages
from anitrack_core.db.models import Distro, Package, Project
from anitrack_core.errors import AlreadyExistsError, FieldError

from ..access import check_csrf, require_admin, require_user
from ..params import MAX_ID
from ..queries import ordered
from ..sessions import flash
from .actions import both, not_archived, project_or_404, project_path, text

if TYPE_CHECKING:
    from ..context import WebContext


def _package_or_404(project: Project, package_id: str) -> Package:
    package = None
    if package_id.isdigit() and int(package_id) <= MAX_ID:
        package = Package.get_or_none((Package.id == int(package_id)) & (Package.project == project.id))
    if package is None:
        raise HTTPError(404, f"{project.name} has no such mapping.")
    return package


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def form_page(project: Project, values: dict[str, str], *, package: Package | None = None, status: int = 200,
                  errors: dict[str, str] | None = None, owner: Any = None) -> str:
        distros = [name for (name,) in Distro.select(Distro.name).order_by(ordered(Distro.name_key)).tuples()]
        return ctx.render("mapping_form.html", status=status, project=project, package=package, values=values,
                          distros=distros, errors=errors or {}, owner=owner)

    def read_form() -> tuple[dict[str, str], Distro | None, dict[str, str]]:
        values = {"distro": text("distro"), "package_name": text("package_name")}
        errors: dict[str, str] = {}
        distro = Distro.get_or_none(Distro.name_key == values["distro"].casefold()) if values["distro"] else None
        if distro is None:
            errors["distro"] = (f"There is no distribution {values['distro']!r}." if values["distro"]
                                else "Choose a distribution.")
        if not values["package_name"]:
            errors["package_name"] = "Give the package's name in the distribution."
        return values, distro, errors

    def taken(project: Project, values: dict[str, str], exc: AlreadyExistsError, package: Package | None) -> str:
        owner = getattr(exc, "existing", None)
        where = "this project" if owner is not None and owner.id == project.id else (
            owner.name if owner is not None else "another project")
        return form_page(project, values, package=package, status=409, owner=owner, errors={
            "package_name": f"{values['package_name']} of {values['distro']} is already mapped to {where}."})

    def mappable(project_id: str) -> tuple[Any, Project]:
        user = require_user()
        project = project_or_404(project_id)
        not_archived(project, user, "change its mappings")
        return user, project

    @app.get(both("/project/<project_id>/map"))
    def new_mapping_form(project_id: str) -> str:
        _, project = mappable(project_id)
        return form_page(project, {"distro": (request.query.getunicode("distro") or "").strip(),
                                   "package_name": (request.query.getunicode("package_name") or project.name).strip()})

    @app.post(both("/project/<project_id>/map"))
    def add_mapping(project_id: str) -> str | None:
        require_user()
        check_csrf()
        user, project = mappable(project_id)
        values, distro, errors = read_form()
        if errors or distro is None:
            return form_page(project, values, status=400, errors=errors)
        try:
            packages.map_package(project, distro, values["package_name"], agent=user.email)
        except FieldError as exc:
            return form_page(project, values, status=400, errors={exc.field: str(exc)})
        except AlreadyExistsError as exc:
            return taken(project, values, exc, None)
        flash(f"{values['package_name']} of {distro.name} is now mapped to {project.name}.", "success")
        redirect(project_path(project.id), 303)

    @app.get(both("/project/<project_id>/map/<package_id>"))
    def edit_mapping_form(project_id: str, package_id: str) -> str:
        _, project = mappable(project_id)
        package = _package_or_404(project, package_id)
        return form_page(project, {"distro": Distro.get_by_id(package.distro_id).name,
                                   "package_name": package.package_name}, package=package)

    @app.post(both("/project/<project_id>/map/<package_id>"))
    def edit_mapping(project_id: str, package_id: str) -> str | None:
        require_user()
        check_csrf()
        user, project = mappable(project_id)
        package = _package_or_404(project, package_id)
        values, distro, errors = read_form()
        if errors or distro is None:
            return form_page(project, values, package=package, status=400, errors=errors)
        try:
            edited = packages.update_mapping(package, distro, values["package_name"], agent=user.email)
        except FieldError as exc:
            return form_page(project, values, package=package, status=400, errors={exc.field: str(exc)})
        except AlreadyExistsError as exc:
            return taken(project, values, exc, package)
        flash("The mapping was edited." if edited else "No changes were made to the mapping.",
              "success" if edited else "info")
        redirect(project_path(project.id), 303)

    # ---- administrators: delete a mapping ----

    def mapping_by_names(project: Project, distro: str, package_name: str) -> Package:
        if package_name.endswith("/"):  # the path with a trailing slash
            package_name = package_name[:-1]
        package = (Package.select().join(Distro)
                   .where((Package.project == project.id) & (Distro.name_key == distro.casefold())
                          & (Package.package_name == package_name)).first())
        if package is None:
            raise HTTPError(404, f"{project.name} has no package {package_name!r} in {distro!r}.")
        return package

    @app.get("/project/<project_id>/delete/<distro>/<package_name:path>")
    def confirm_delete_mapping(project_id: str, distro: str, package_name: str) -> str:
        require_admin()
        project = project_or_404(project_id)
        package = mapping_by_names(project, distro, package_name)
        distro_name = Distro.get_by_id(package.distro_id).name
        return ctx.render("confirm.html", title=f"Delete a mapping of {project.name}",
                          question=f"Delete the mapping of {project.name} to the package {package.package_name} "
                                   f"of {distro_name}?",
                          action=f"/project/{project.id}/delete/{_quote(distro_name)}/{_quote(package.package_name)}",
                          button="Delete mapping", cancel=project_path(project.id))

    @app.post("/project/<project_id>/delete/<distro>/<package_name:path>")
    def delete_mapping(project_id: str, distro: str, package_name: str) -> None:
        admin = require_admin()
        check_csrf()
        project = project_or_404(project_id)
        package = mapping_by_names(project, distro, package_name)
        packages.delete_mapping(package, agent=admin.email)
        flash(f"The mapping to {package.package_name} was deleted.", "success")
        redirect(project_path(project.id), 303)


def _quote(segment: str) -> str:
    return quote(segment, safe="/")
