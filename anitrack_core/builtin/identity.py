"""The built-in identity provider kinds: generic OpenID Connect and OAuth2, and the presets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anitrack_core import hookimpl
from anitrack_core.identity import OAuth2Provider, OidcProvider
from anitrack_core.identity.presets import PRESETS

if TYPE_CHECKING:
    from anitrack_core.registry import IdentityProviderRegistry


@hookimpl
def anitrack_register_identity_providers(registry: IdentityProviderRegistry) -> None:
    for kind in (OidcProvider, OAuth2Provider, *PRESETS):
        registry.add(kind)
