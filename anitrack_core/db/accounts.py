"""Users, how they sign in, and their API tokens.

A token is 40 random letters and digits, shown once when it is made.  The
database keeps only a 40-character digest of it (and its first characters, so
a user can tell tokens apart): a leaked database yields no usable token.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING

import peewee

from ..errors import AlreadyExistsError, AnitrackError, EmailTakenError, InactiveUserError, NotFoundError
from .models import ApiToken, User, UserIdentity, utcnow
from .sessions import end_sessions_of

if TYPE_CHECKING:
    from ..identity import Identity

TOKEN_LENGTH = 40
TOKEN_ALPHABET = string.ascii_letters + string.digits
_TOKEN_RE = re.compile(r"^[A-Za-z0-9]{40}$")
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+$")


def token_digest(secret: str) -> str:
    """The 40-character value stored for *secret*."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:TOKEN_LENGTH]


def add_user(email: str, username: str, *, admin: bool = False) -> User:
    """Create a user.

    :raises AnitrackError: the e-mail or username is malformed.
    :raises AlreadyExistsError: a user with that e-mail (ignoring case) exists.
    """
    email, username = email.strip(), username.strip()
    if not _EMAIL_RE.match(email) or len(email) > 256:
        raise AnitrackError(f"invalid e-mail address {email!r}")
    if not username or len(username) > 256:
        raise AnitrackError("username must be 1 to 256 characters")
    try:
        with User._meta.database.atomic():
            return User.create(id=uuid.uuid4(), email=email, email_key=email.casefold(),
                               username=username, admin=admin)
    except peewee.IntegrityError:
        raise AlreadyExistsError(f"a user with e-mail {email!r} already exists") from None


def find_user(email: str) -> User:
    """The user with this e-mail (ignoring case).

    :raises NotFoundError: no such user.
    """
    user = User.get_or_none(User.email_key == email.strip().casefold())
    if user is None:
        raise NotFoundError(f"no user with e-mail {email!r}")
    return user


def add_token(user: User, description: str | None = None) -> str:
    """Make a token for *user*; returns the secret (the only time it is seen)."""
    secret = "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))
    ApiToken.create(token=token_digest(secret), hint=secret[:4], user=user,
                    description=description or None)
    return secret


def user_for_token(secret: str | None) -> User | None:
    """The active user owning token *secret*, or None (malformed, unknown, inactive)."""
    if not secret or not _TOKEN_RE.match(secret):
        return None
    digest = token_digest(secret)
    row = (ApiToken.select(ApiToken, User).join(User)
           .where(ApiToken.token == digest).first())
    if row is None or not hmac.compare_digest(row.token, digest) or not row.user.active:
        return None
    ApiToken.update(last_used=utcnow()).where(ApiToken.token == digest).execute()
    return row.user


def sign_in(provider: str, identity: Identity, *, admin_emails: Iterable[str] = ()) -> User:
    """The user who just signed in as *identity* at *provider* (a provider's configured name).

    The user is found by (provider, subject).  On a first sign-in the e-mail
    decides: a user with that e-mail and no identity yet (made by an operator,
    or moved from another service) is bound to this provider; no user: one is
    created; a user who signs in with another provider: refused, naming it.
    E-mails listed in *admin_emails* are made administrators.

    :raises AnitrackError: the provider gave no usable e-mail address.
    :raises EmailTakenError: the e-mail belongs to a user of another provider.
    :raises InactiveUserError: the user is inactive (nothing is written then).
    """
    db = User._meta.database
    with db.atomic():
        link = (UserIdentity.select(UserIdentity, User).join(User)
                .where((UserIdentity.provider == provider) & (UserIdentity.subject == identity.subject)).first())
        if link is not None:
            user = link.user
            _refuse_inactive(user)
            if identity.email and link.email != identity.email:
                link.email = identity.email
                link.save()
        else:
            user = _first_sign_in(provider, identity)
        admins = {email.strip().casefold() for email in admin_emails}
        if user.email_key in admins:
            user.admin = True
        user.last_login = utcnow()
        user.save()
    return user


def _first_sign_in(provider: str, identity: Identity) -> User:
    if not identity.email or not _EMAIL_RE.match(identity.email):
        raise AnitrackError("The identity provider did not give an e-mail address; anitrack needs one to "
                            "know you.  Allow it to share your e-mail address and sign in again.")
    if identity.email_verified is False:
        raise AnitrackError(f"The identity provider says your e-mail address {identity.email} is not verified; "
                            "verify it there and sign in again.")
    user = User.get_or_none(User.email_key == identity.email.strip().casefold())
    if user is not None:
        _refuse_inactive(user)
        others = sorted({row.provider for row in UserIdentity.select(UserIdentity.provider)
                         .where(UserIdentity.user == user.id)})
        if others:
            raise EmailTakenError(f"There is already an account with the e-mail address {identity.email}; "
                                  f"sign in with {' or '.join(others)}, the provider it was made with.", others)
    else:
        username = (identity.username or identity.email.split("@")[0]).strip()[:256]
        user = add_user(identity.email, username)
    UserIdentity.create(user=user, provider=provider, subject=identity.subject, email=identity.email)
    return user


def _refuse_inactive(user: User) -> None:
    if not user.active:
        raise InactiveUserError("This account has been deactivated by an administrator; it cannot sign in.")


def set_admin(user: User, admin: bool) -> None:
    """Grant or revoke administrator rights."""
    User.update(admin=admin).where(User.id == user.id).execute()
    user.admin = admin


def set_active(user: User, active: bool) -> None:
    """Ban (``active=False``) or unban *user*.  A ban ends their sessions at once; their tokens stop working."""
    with User._meta.database.atomic():
        User.update(active=active).where(User.id == user.id).execute()
        if not active:
            end_sessions_of(user)
    user.active = active


def delete_user(user: User) -> None:
    """Delete *user* with their identities, tokens and sessions."""
    user.delete_instance()


def delete_token(user: User, digest: str) -> bool:
    """Delete *user*'s token whose stored digest is *digest*; False when they have no such token."""
    return ApiToken.delete().where((ApiToken.user == user.id) & (ApiToken.token == digest)).execute() > 0
