"""Authlib's OAuth2/OIDC client, as :mod:`.provider` uses it.

Imported only when a sign-in begins or completes: Authlib and its JOSE and
cryptography stack take about 0.15 s to import, which processes that never
sign anyone in (the check pass's fetch workers, the CLI) do not pay.
"""

from __future__ import annotations

from typing import Any

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.base_client import BaseApp, FrameworkIntegration, OAuth2Mixin, OpenIDMixin
from authlib.integrations.requests_client import OAuth2Session
from joserfc.errors import JoseError

from .provider import SIGN_IN_EXPIRY

#: what a failed protocol step raises (the provider's answer, the network, a malformed token)
PROTOCOL_ERRORS = (AuthlibBaseError, JoseError, requests.RequestException, ValueError, KeyError, RuntimeError)


class AuthlibApp(OAuth2Mixin, OpenIDMixin, BaseApp):
    """Authlib's framework-neutral OAuth2/OIDC client app, on its requests-based session."""

    client_cls = OAuth2Session


class StateKeeper(FrameworkIntegration):
    """Authlib's own state bookkeeping, kept in the mapping the caller gives (the browser's session)."""

    expires_in = SIGN_IN_EXPIRY

    def update_token(self, token: Any, refresh_token: Any = None, access_token: Any = None) -> None:
        """Tokens are used once, during sign-in, and never refreshed."""
