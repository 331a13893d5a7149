"""Distributions: anyone signed in adds one; administrators rename and delete them.

The list and the distribution pages are the browse pages' (``/distros/``,
``/distro/<name>/``).  A rename to a name another distribution has (ignoring
case) brings the form back saying so; deleting a distribution deletes its
mappings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from bottle import Bottle, redirect

from anitrack_core.db import distros
from anitrack_core.db.models import Distro, Package
from anitrack_core.errors import AlreadyExistsError, AnitrackError, FieldError

from ..access import check_csrf, require_admin, require_user
from ..sessions import flash
from .actions import both, distro_or_404, text

if TYPE_CHECKING:
    from ..context import WebContext


def distro_path(name: str) -> str:
    return f"/distro/{quote(name, safe='')}/"


def add_routes(app: Bottle, ctx: WebContext) -> None:
    def form(*, distro: Distro | None = None, name: str = "", status: int = 200,
             errors: dict[str, str] | None = None, existing: Distro | None = None) -> str:
        return ctx.render("distro_form.html", status=status, distro=distro, name=name, errors=errors or {},
                          existing=existing, quote=quote)

    @app.get(both("/distro/add"))
    def add_form() -> str:
        require_user()
        return form()

    @app.post(both("/distro/add"))
    def add_distro() -> str | None:
        user = require_user()
        check_csrf()
        name = text("name")
        existing = distros.find_distro(name) if name else None
        if existing is not None:
            return form(name=name, status=409, existing=existing,
                        errors={"name": f"The distribution {existing.name} already exists."})
        try:
            distro, _ = distros.add_distro(name, agent=user.email)
        except AnitrackError as exc:
            return form(name=name, status=400, errors={"name": str(exc)})
        flash(f"The distribution {distro.name} was added.", "success")
        redirect(distro_path(distro.name), 303)

    @app.get(both("/distro/<name>/edit"))
    def edit_form(name: str) -> str:
        require_admin()
        distro = distro_or_404(name)
        return form(distro=distro, name=distro.name)

    @app.post(both("/distro/<name>/edit"))
    def rename(name: str) -> str | None:
        admin = require_admin()
        check_csrf()
        distro = distro_or_404(name)
        new_name = text("name")
        old = distro.name
        try:
            changed = distros.rename_distro(distro, new_name, agent=admin.email)
        except FieldError as exc:
            return form(distro=distro, name=new_name, status=400, errors={exc.field: str(exc)})
        except AlreadyExistsError:
            return form(distro=distro, name=new_name, status=409, existing=distros.find_distro(new_name),
                        errors={"name": f"Another distribution is named {new_name!r} (ignoring case)."})
        flash(f"The distribution {old} is now named {distro.name}." if changed else "No changes were made.",
              "success" if changed else "info")
        redirect(distro_path(distro.name), 303)

    @app.get(both("/distro/<name>/delete"))
    def confirm_delete(name: str) -> str:
        require_admin()
        distro = distro_or_404(name)
        count = Package.select().where(Package.distro == distro.id).count()
        return ctx.render("confirm.html", title=f"Delete the distribution {distro.name}",
                          question=f"Delete the distribution {distro.name} and its {count} "
                                   f"mapping{'' if count == 1 else 's'} to projects? This cannot be undone.",
                          action=f"/distro/{quote(distro.name, safe='')}/delete", button="Delete distribution",
                          cancel=distro_path(distro.name))

    @app.post(both("/distro/<name>/delete"))
    def delete(name: str) -> None:
        admin = require_admin()
        check_csrf()
        distro = distro_or_404(name)
        removed = distros.delete_distro(distro, agent=admin.email)
        flash(f"The distribution {distro.name} was deleted with {removed} mapping{'' if removed == 1 else 's'}.",
              "success")
        redirect("/distros/", 303)
