"""Users and their API tokens.

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

import peewee

from ..errors import AlreadyExistsError, AnitrackError, NotFoundError
from .models import ApiToken, User, utcnow

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
