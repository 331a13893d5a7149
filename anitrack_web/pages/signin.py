"""Signing in and out: /login/, /login/<provider>, the provider's callback /auth/<provider>, /logout/.

The callback URL of a provider is ``<base_url>/auth/<name>``, as in the
existing service, so operators register the same address.  A sign-in that
fails says why on a page (400; 403 for a deactivated account), or in JSON to
a client that asks for JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bottle import Bottle, HTTPError, HTTPResponse, redirect, request, response

from anitrack_core.db.accounts import sign_in
from anitrack_core.errors import AnitrackError, EmailTakenError, InactiveUserError

from ..access import check_csrf, local_path
from ..errors import error_body, wants_json
from ..sessions import flash, visitor

if TYPE_CHECKING:
    from ..context import WebContext


def _both(path: str) -> list[str]:
    return [path, path + "/"]


def add_routes(app: Bottle, ctx: WebContext) -> None:
    settings = ctx.runtime.settings

    def provider_or_404(name: str) -> Any:
        provider = ctx.providers.get(name)
        if provider is None:
            raise HTTPError(404, f"There is no identity provider named {name!r} here.")
        return provider

    def refused(status: int, message: str, **extra: Any) -> Any:
        if wants_json():
            raise HTTPResponse(error_body(status, message, **extra), status=status)
        return ctx.render("signin_error.html", status=status, message=message,
                          providers=list(ctx.providers.values()))

    @app.get(_both("/login"))
    def login_page() -> str:
        next_path = local_path(request.query.getunicode("next"))
        return ctx.render("login.html", providers=list(ctx.providers.values()), next_path=next_path)

    @app.get(_both("/login/<name>"))
    def start_sign_in(name: str) -> None:
        provider = provider_or_404(name)
        next_path = local_path(request.query.getunicode("next"))
        current = ctx.cookies.ensure_session()
        try:
            url = provider.begin(f"{settings.base_url.rstrip('/')}/auth/{name}", current.data,
                                 carry={"next": next_path})
        except AnitrackError as exc:
            return refused(502, str(exc))
        current.save()
        redirect(url, 303)

    @app.get(_both("/auth/<name>"))
    def finish_sign_in(name: str) -> Any:
        provider = provider_or_404(name)
        current = visitor()
        params = {key: request.query.getunicode(key) or "" for key in request.query.keys()}
        try:
            identity, carried = provider.complete(params, current.data)
        except AnitrackError as exc:
            current.save()
            return refused(400, str(exc))
        current.save()
        try:
            user = sign_in(name, identity, admin_emails=settings["auth.admin_emails"])
        except EmailTakenError as exc:
            names = [ctx.provider_title(p) for p in exc.providers]
            message = (f"There is already an account with the e-mail address {identity.email}: sign in with "
                       f"{' or '.join(names)}, the provider that account was made with.")
            return refused(400, message, providers=exc.providers)
        except InactiveUserError as exc:
            return refused(403, str(exc))
        except AnitrackError as exc:
            return refused(400, str(exc))
        ctx.cookies.sign_in(user)
        flash(f"Signed in as {user.username}.", "success")
        redirect(local_path(carried.get("next")), 303)

    @app.get(_both("/logout"))
    def logout_page() -> str:
        return ctx.render("logout.html")

    @app.post(_both("/logout"))
    def logout() -> str:
        if visitor().session is not None:
            check_csrf()
            ctx.cookies.sign_out()
        response.status = 303
        response.set_header("Location", "/")
        return ""
