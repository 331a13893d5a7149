"""Presets for the identity providers people use most: GitHub, GitLab, Google and Fedora.

Each is one of the generic kinds with its endpoints and scopes filled in, and
its own reading of who signed in where the provider differs from the norm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .provider import Identity, OAuth2Provider, OidcProvider, SignInError

if TYPE_CHECKING:
    from .authlib_client import AuthlibApp


class GitHubProvider(OAuth2Provider):
    """GitHub (OAuth2; GitHub offers no OpenID Connect for signing people in)."""

    name = "github"
    title = "GitHub"
    defaults: ClassVar[Mapping[str, Any]] = {
        "authorize_url": "https://github.com/login/oauth/authorize",
        "token_url": "https://github.com/login/oauth/access_token",
        "userinfo_url": "https://api.github.com/user",
        "emails_url": "https://api.github.com/user/emails",
        "scopes": ["read:user", "user:email"],
    }
    extra_keys = ("emails_url",)
    registration_help = ("GitHub → Settings → Developer settings → OAuth Apps → New OAuth App; "
                         "Authorization callback URL: <base_url>/auth/<name>.")

    def identity(self, app: AuthlibApp, token: Mapping[str, Any], claims: Mapping[str, Any]) -> Identity:
        account = self.userinfo(app, token, self.options["userinfo_url"])
        emails = self.userinfo(app, token, self.options["emails_url"])
        primary = next((e for e in emails if isinstance(e, dict) and e.get("primary") and e.get("verified")), None)
        if primary is None:
            raise SignInError("Your GitHub account has no verified primary e-mail address")
        return Identity(str(account.get("id") or ""), primary.get("email"), account.get("login"), True)


class GitLabProvider(OidcProvider):
    """GitLab (OpenID Connect); set ``issuer`` for a self-hosted GitLab."""

    name = "gitlab"
    title = "GitLab"
    defaults: ClassVar[Mapping[str, Any]] = {"issuer": "https://gitlab.com", "scopes": ["openid", "email", "profile"]}
    registration_help = ("GitLab → Edit profile → Applications → Add new application: confidential, scopes "
                         "openid, email and profile, Redirect URI <base_url>/auth/<name>.")


class GoogleProvider(OidcProvider):
    """Google (OpenID Connect); the username is the e-mail address, as in the existing service."""

    name = "google"
    title = "Google"
    defaults: ClassVar[Mapping[str, Any]] = {"issuer": "https://accounts.google.com",
                                             "scopes": ["openid", "email", "profile"]}
    registration_help = ("Google Cloud console → APIs & Services → Credentials → Create OAuth client ID "
                         "(Web application); Authorized redirect URI <base_url>/auth/<name>.")

    def identity_from_claims(self, claims: Mapping[str, Any]) -> Identity:
        found = super().identity_from_claims(claims)
        return Identity(found.subject, found.email, found.email or found.username, found.email_verified)


class FedoraProvider(OidcProvider):
    """Fedora accounts (OpenID Connect at id.fedoraproject.org).

    As in the existing service, the e-mail address is ``<username>@fedoraproject.org``,
    so that accounts moved from it are recognised at their first sign-in.
    """

    name = "fedora"
    title = "Fedora"
    defaults: ClassVar[Mapping[str, Any]] = {"issuer": "https://id.fedoraproject.org",
                                             "scopes": ["openid", "email", "profile"]}
    client_options: ClassVar[Mapping[str, Any]] = {"token_endpoint_auth_method": "client_secret_post"}
    registration_help = ("Ask Fedora Infrastructure for an OIDC client (a ticket at "
                         "pagure.io/fedora-infrastructure) with redirect URI <base_url>/auth/<name>.")

    def identity_from_claims(self, claims: Mapping[str, Any]) -> Identity:
        found = super().identity_from_claims(claims)
        username = claims.get("preferred_username") or claims.get("nickname") or found.username
        if not username:
            raise SignInError("Fedora did not say which account signed in (no username)")
        return Identity(found.subject, f"{username}@fedoraproject.org", username, True)


PRESETS = (GitHubProvider, GitLabProvider, GoogleProvider, FedoraProvider)
