"""Identity provider kinds: what to ask a provider, and how to read who signed in.

A kind is a class; a configured provider (``[auth.providers.github]``) is an
instance of it.  The two steps of a sign-in are :meth:`IdentityProvider.begin`
(the URL to send the browser to) and :meth:`IdentityProvider.complete` (the
person, from the parameters the provider sent back).  Both are Authlib's work:
the authorization-code flow with ``state``, a ``nonce`` for OpenID Connect and
PKCE (S256), the token request, the ID token's signature and claims checked
against the provider's published keys, and the userinfo request.  A kind only
says where the endpoints are and which claims name the person
(:meth:`IdentityProvider.identity`).

Between the two steps Authlib keeps what it needs (state, nonce, code
verifier, redirect URI) in a mapping the caller provides: the web app gives
the data of the browser's server-side session, so a callback only completes a
sign-in that this browser started.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import AnitrackError

if TYPE_CHECKING:
    from .authlib_client import AuthlibApp

#: seconds a sign-in may take between leaving for the provider and coming back
SIGN_IN_EXPIRY = 600


class SignInError(AnitrackError):
    """A sign-in could not be completed; the message is written for the person signing in."""


@dataclass(frozen=True)
class Identity:
    """Who signed in, as the provider says.

    :param subject: the provider's stable identifier of the account (OIDC ``sub``).
    :param email: the account's e-mail address, if the provider gave one.
    :param username: a name to show (the provider's login name where it has one).
    :param email_verified: what the provider says of the address (None: it says nothing).
    """

    subject: str
    email: str | None
    username: str | None
    email_verified: bool | None = None


class IdentityProvider:
    """Base of every identity provider kind.

    Class attributes a kind defines:

    ``name``
        the ``kind`` value operators write (``"oidc"``, ``"github"``...).
    ``title``
        the display name when the operator gives none.
    ``protocol``
        ``"oidc"`` (discovery from ``issuer``, an ID token is required) or
        ``"oauth2"`` (``authorize_url``, ``token_url``, ``userinfo_url``).
    ``defaults``
        values of the settings keys the operator need not give (a preset's
        endpoints and scopes).
    ``required_keys``
        keys that must have a value once the defaults are applied.
    ``extra_keys``
        keys a kind accepts beyond the standard ones.
    ``client_options``
        Authlib client options (for example ``token_endpoint_auth_method``).
    ``registration_help``
        what an operator registers at the provider (shown by the docs and
        ``anitrack plugins``).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    protocol: ClassVar[str]
    defaults: ClassVar[Mapping[str, Any]] = {}
    required_keys: ClassVar[tuple[str, ...]] = ("client_id", "client_secret")
    extra_keys: ClassVar[tuple[str, ...]] = ()
    client_options: ClassVar[Mapping[str, Any]] = {}
    registration_help: ClassVar[str] = ""
    #: seconds to wait for the provider on each request
    timeout: ClassVar[float] = 10.0

    def __init__(self, provider_name: str, options: Mapping[str, Any], *, user_agent: str | None = None) -> None:
        """:param options: the provider's settings with the kind's defaults applied (see :mod:`.settings`)."""
        self.provider_name = provider_name
        self.options = dict(options)
        self.display_name: str = self.options.get("display_name") or self.title
        self._user_agent = user_agent
        self._app: AuthlibApp | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.provider_name!r}>"

    # ---- what a kind may change ----

    def endpoints(self) -> dict[str, Any]:
        """Authlib's endpoint arguments for this provider."""
        raise NotImplementedError

    def identity(self, app: AuthlibApp, token: Mapping[str, Any], claims: Mapping[str, Any]) -> Identity:
        """Who signed in, from the token response and the validated ID-token claims (empty for OAuth2)."""
        raise NotImplementedError

    # ---- the two steps of a sign-in ----

    def begin(self, redirect_uri: str, state_store: MutableMapping[str, Any], *,
              carry: Mapping[str, Any] | None = None) -> str:
        """The provider's authorization URL to send the browser to.

        :param redirect_uri: where the provider sends the browser back (``<base_url>/auth/<name>``).
        :param state_store: where the pending sign-in is kept until :meth:`complete`.
        :param carry: JSON-able values handed back by :meth:`complete` (where to go afterwards).
        :raises SignInError: the provider cannot be reached or its metadata is unusable.
        """
        from .authlib_client import PROTOCOL_ERRORS

        app = self._authlib_app()
        try:
            started = app.create_authorization_url(redirect_uri)
        except PROTOCOL_ERRORS as exc:
            raise SignInError(f"{self.display_name} cannot be reached to sign in: {_reason(exc)}") from None
        url = started.pop("url")
        app.framework.set_state_data(state_store, started.pop("state"),
                                     {"redirect_uri": redirect_uri, "carry": dict(carry or {}), **started})
        return url

    def complete(self, params: Mapping[str, str],
                 state_store: MutableMapping[str, Any]) -> tuple[Identity, dict[str, Any]]:
        """Finish the sign-in the provider sent the browser back from.

        :param params: the query parameters of the callback (``code``, ``state`` or ``error``).
        :returns: who signed in, and the *carry* values given to :meth:`begin`.
        :raises SignInError: the provider refused, the sign-in was not started by
            this browser (or expired), or a protocol check failed.
        """
        from .authlib_client import PROTOCOL_ERRORS

        app = self._authlib_app()
        state = params.get("state") or ""
        pending = app.framework.get_state_data(state_store, state) if state else None
        if state:
            app.framework.clear_state_data(state_store, state)
        if params.get("error"):
            detail = params.get("error_description") or params["error"]
            raise SignInError(f"{self.display_name} did not sign you in: {detail}")
        if pending is None:
            raise SignInError("This sign-in was not started from this browser, or it took too long. "
                              "Please sign in again.")
        if not params.get("code"):
            raise SignInError(f"{self.display_name} sent no authorization code back. Please sign in again.")
        exchange = {"code": params["code"], "redirect_uri": pending["redirect_uri"]}
        if pending.get("code_verifier"):
            exchange["code_verifier"] = pending["code_verifier"]
        try:
            token = app.fetch_access_token(**exchange)
            claims: Mapping[str, Any] = {}
            if "id_token" in token:
                claims = app.parse_id_token(token, nonce=pending.get("nonce")) or {}
            elif self.protocol == "oidc":
                raise SignInError(f"{self.display_name} answered without an ID token")
            identity = self.identity(app, token, claims)
        except PROTOCOL_ERRORS as exc:
            raise SignInError(f"Signing in with {self.display_name} failed: {_reason(exc)}") from None
        if not identity.subject:
            raise SignInError(f"{self.display_name} did not say which account signed in")
        return identity, dict(pending.get("carry") or {})

    def _authlib_app(self) -> AuthlibApp:
        from .authlib_client import AuthlibApp, StateKeeper

        with self._lock:
            if self._app is None:
                scopes = self.options.get("scopes") or []
                client_kwargs = {"scope": " ".join(scopes), "code_challenge_method": "S256",
                                 "default_timeout": self.timeout, **self.client_options}
                self._app = AuthlibApp(StateKeeper(self.provider_name), self.provider_name,
                                        client_id=self.options["client_id"],
                                        client_secret=self.options["client_secret"],
                                        client_kwargs=client_kwargs, user_agent=self._user_agent,
                                        **self.endpoints())
            return self._app


class OidcProvider(IdentityProvider):
    """Any OpenID Connect provider, found by discovery from its ``issuer`` URL."""

    name = "oidc"
    title = "OpenID Connect"
    protocol = "oidc"
    defaults: ClassVar[Mapping[str, Any]] = {"scopes": ["openid", "email", "profile"]}
    required_keys = ("issuer", "client_id", "client_secret")
    registration_help = ("Register a confidential client (authorization-code flow) whose redirect URI is "
                         "<base_url>/auth/<name>, with the scopes openid, email and profile.")

    def endpoints(self) -> dict[str, Any]:
        issuer = self.options["issuer"].rstrip("/")
        return {"server_metadata_url": f"{issuer}/.well-known/openid-configuration"}

    def identity(self, app: AuthlibApp, token: Mapping[str, Any], claims: Mapping[str, Any]) -> Identity:
        issuer = app.load_server_metadata().get("issuer", "").rstrip("/")
        if issuer != self.options["issuer"].rstrip("/"):
            raise SignInError(f"{self.display_name} announces issuer {issuer!r}, not the configured "
                              f"{self.options['issuer']!r}")
        found = dict(claims)
        if not found.get("email") and app.load_server_metadata().get("userinfo_endpoint"):
            userinfo = app.userinfo(token=token)
            if userinfo.get("sub") == found.get("sub"):
                found.update({k: v for k, v in userinfo.items() if k not in found})
        return self.identity_from_claims(found)

    def identity_from_claims(self, claims: Mapping[str, Any]) -> Identity:
        """The person named by the (validated) OpenID Connect claims."""
        email = claims.get("email") or None
        username = (claims.get("preferred_username") or claims.get("nickname") or claims.get("name")
                    or (email.split("@")[0] if email else None))
        verified = claims.get("email_verified")
        return Identity(str(claims.get("sub") or ""), email, username,
                        verified if isinstance(verified, bool) else None)


class OAuth2Provider(IdentityProvider):
    """Any OAuth2 provider with a userinfo endpoint answering JSON about the account."""

    name = "oauth2"
    title = "OAuth2"
    protocol = "oauth2"
    required_keys = ("authorize_url", "token_url", "userinfo_url", "client_id", "client_secret")
    registration_help = ("Register an OAuth application whose callback (redirect) URL is "
                         "<base_url>/auth/<name>; give its authorize, token and userinfo URLs.")

    def endpoints(self) -> dict[str, Any]:
        return {"authorize_url": self.options["authorize_url"], "access_token_url": self.options["token_url"]}

    def userinfo(self, app: AuthlibApp, token: Mapping[str, Any], url: str) -> Any:
        """The JSON the provider answers at *url* for the signed-in account."""
        response = app.get(url, token=token)
        response.raise_for_status()
        return response.json()

    def identity(self, app: AuthlibApp, token: Mapping[str, Any], claims: Mapping[str, Any]) -> Identity:
        data = self.userinfo(app, token, self.options["userinfo_url"])
        if not isinstance(data, dict):
            raise SignInError(f"{self.display_name} answered its userinfo request with something other "
                              "than a JSON object")
        subject = data.get("sub") or data.get("id")
        email = data.get("email") or None
        username = (data.get("preferred_username") or data.get("login") or data.get("username")
                    or data.get("name") or (email.split("@")[0] if email else None))
        verified = data.get("email_verified")
        return Identity(str(subject) if subject is not None else "", email, username,
                        verified if isinstance(verified, bool) else None)


def _reason(exc: BaseException) -> str:
    text = getattr(exc, "description", None) or str(exc) or type(exc).__name__
    return text.splitlines()[0][:300]
