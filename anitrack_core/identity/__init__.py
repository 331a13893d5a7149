"""Signing people in through third-party identity providers (OpenID Connect, OAuth2).

anitrack keeps no passwords: a person is known by the account they hold at an
identity provider.  The *kinds* of provider (generic OpenID Connect, generic
OAuth2, and presets such as GitHub) are plugins, registered through the
``anitrack_register_identity_providers`` hook like backends; the operator
enables any number of providers, one ``[auth.providers.<name>]`` table each
(:mod:`.settings`).  Every protocol step (authorization URL with state, nonce
and PKCE, token exchange, ID-token validation against the provider's keys,
userinfo) is done by Authlib (:mod:`.provider`); this package only says which
endpoints and which claims.
"""

from .provider import Identity, IdentityProvider, OAuth2Provider, OidcProvider, SignInError
from .settings import PROVIDER_KEYS, configured_providers

__all__ = [
    "PROVIDER_KEYS",
    "Identity",
    "IdentityProvider",
    "OAuth2Provider",
    "OidcProvider",
    "SignInError",
    "configured_providers",
]
