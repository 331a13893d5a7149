"""The administrators' users page: find users, grant or revoke administration, ban, unban, delete.

Every action is for administrators only (the existing service let any
signed-in user delete users; not here) and an administrator cannot ban,
demote or delete themselves (another administrator can).  A ban ends the
user's sessions and stops their API tokens at once.  The paths are the
existing service's: ``POST /users/<id>/admin/<true|false>``,
``POST /users/<id>/active/<true|false>``, ``/users/<id>/delete``.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from bottle import Bottle, HTTPError, redirect, request
from peewee import fn

from anitrack_core.db.accounts import delete_user, set_active, set_admin
from anitrack_core.db.models import User, UserIdentity

from ..access import check_csrf, local_path, require_admin
from ..queries import like_pattern, matches
from ..sessions import flash
from .paging import Pager, page_number

if TYPE_CHECKING:
    from ..context import WebContext

PER_PAGE = 50
_CHOICES = {"": None, "yes": True, "no": False}


def _user_or_404(user_id: str) -> User:
    try:
        key = uuid.UUID(user_id)
    except ValueError:
        raise HTTPError(404, "There is no such user.") from None
    user = User.get_or_none(User.id == key)
    if user is None:
        raise HTTPError(404, "There is no such user.")
    return user


def _state(value: str) -> bool:
    lowered = value.lower()
    if lowered not in ("true", "false"):
        raise HTTPError(404, "The state must be true or false.")
    return lowered == "true"


def _back() -> None:
    redirect(local_path(request.forms.getunicode("next"), "/users/"), 303)


def _not_yourself(admin: User, user: User, action: str) -> None:
    if admin.id == user.id:
        raise HTTPError(403, f"You cannot {action} yourself; ask another administrator.")


def add_routes(app: Bottle, ctx: WebContext) -> None:
    @app.get(["/users", "/users/"])
    def users_page() -> str:
        require_admin()
        query_text = (request.query.getunicode("q") or "").strip()
        filters = {name: (request.query.getunicode(name) or "").lower() for name in ("admin", "active")}
        problems = {name: "Choose yes, no or any." for name, value in filters.items() if value not in _CHOICES}
        users = User.select()
        if query_text:
            like = like_pattern(f"*{query_text}*")
            users = users.where(matches(fn.LOWER(User.username), like) | matches(User.email_key, like))
        for name, value in filters.items():
            if _CHOICES.get(value) is not None:
                users = users.where(getattr(User, name) == _CHOICES[value])
        pager = Pager(page_number(), PER_PAGE, users.count())
        rows = list(users.order_by(fn.LOWER(User.username), User.id).paginate(pager.page, PER_PAGE))
        providers: dict[Any, list[str]] = {}
        if rows:
            for identity in UserIdentity.select().where(UserIdentity.user.in_([u.id for u in rows])):
                providers.setdefault(identity.user_id, []).append(ctx.provider_title(identity.provider))
        return ctx.render("users.html", status=400 if problems else 200, users=rows, pager=pager,
                          providers=providers, q=query_text, filters=filters, errors=problems)

    def change(user_id: str, state: str, *, action: str) -> tuple[User, bool]:
        """The user and the state a change asks for, once the visitor may make it."""
        admin = require_admin()
        check_csrf()
        user, value = _user_or_404(user_id), _state(state)
        _not_yourself(admin, user, action)
        return user, value

    @app.post(["/users/<user_id>/admin/<state>", "/users/<user_id>/admin/<state>/"])
    def change_admin(user_id: str, state: str) -> None:
        user, grant = change(user_id, state, action="change the administrator rights of")
        set_admin(user, grant)
        flash(f"{user.username} is {'now' if grant else 'no longer'} an administrator.", "success")
        _back()

    @app.post(["/users/<user_id>/active/<state>", "/users/<user_id>/active/<state>/"])
    def change_active(user_id: str, state: str) -> None:
        user, active = change(user_id, state, action="ban")
        set_active(user, active)
        outcome = ("no longer banned" if active
                   else "banned: their sessions ended and their API tokens stopped working")
        flash(f"{user.username} is {outcome}.", "success")
        _back()

    @app.get(["/users/<user_id>/delete", "/users/<user_id>/delete/"])
    def confirm_delete(user_id: str) -> str:
        require_admin()
        user = _user_or_404(user_id)
        return ctx.render("confirm.html", title=f"Delete user {user.username}",
                          question=f"Delete the user {user.username} ({user.email}) with their API tokens and "
                                   "sign-in identities? This cannot be undone.",
                          action=f"/users/{user.id}/delete", button="Delete user", cancel="/users/")

    @app.post(["/users/<user_id>/delete", "/users/<user_id>/delete/"])
    def remove_user(user_id: str) -> None:
        admin = require_admin()
        check_csrf()
        user = _user_or_404(user_id)
        _not_yourself(admin, user, "delete")
        delete_user(user)
        flash(f"The user {user.username} was deleted.", "success")
        redirect("/users/", 303)
