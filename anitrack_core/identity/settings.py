"""The identity providers an operator enabled: ``[auth.providers.<name>]`` tables, checked at start-up.

One table per provider, with these keys (tools configure anitrack through
them: they are a contract)::

    [auth.providers.fedora]
    kind = "fedora"              # "oidc", "oauth2" or a preset: "github", "gitlab", "google", "fedora"
    client_id = "..."
    client_secret = "..."        # secret: never shown by `anitrack config`
    display_name = "Fedora"      # optional
    # issuer = "https://..."                  (oidc: discovery from <issuer>/.well-known/openid-configuration)
    # authorize_url / token_url / userinfo_url (oauth2)
    # scopes = ["openid", "email"]           (a list, or one space-separated string)

Any key of a provider named in the file can be set or overridden by an
environment variable ``ANITRACK_AUTH_PROVIDERS_<NAME>_<KEY>`` (``-`` in the
name becomes ``_``), which is how secrets usually arrive; a provider can also
be defined by such variables alone.  Every problem is a
:class:`~anitrack_core.errors.ConfigError` naming the key and where its value
came from.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..errors import ConfigError, UnknownNameError
from .provider import IdentityProvider

if TYPE_CHECKING:
    from ..config import Settings
    from ..registry import IdentityProviderRegistry

SETTING = "auth.providers"
ENV_PREFIX = "ANITRACK_AUTH_PROVIDERS_"
#: the keys of a provider table (kinds may accept more: ``IdentityProvider.extra_keys``)
PROVIDER_KEYS = ("kind", "issuer", "authorize_url", "token_url", "userinfo_url", "client_id", "client_secret",
                 "scopes", "display_name")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,49}$")
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}


def configured_providers(settings: Settings, kinds: IdentityProviderRegistry,
                         environ: Mapping[str, str]) -> dict[str, IdentityProvider]:
    """The enabled providers by name, in the order the file lists them.

    :raises ConfigError: a table or variable names an unknown kind or key, a
        required key is missing, or a value is malformed.
    """
    source = settings.source(SETTING)
    tables: dict[str, dict[str, tuple[Any, str]]] = {}
    for name, table in (settings[SETTING] or {}).items():
        tables[name] = {key: (value, source) for key, value in table.items()}
    for name, key, value, variable in _environment_values(environ, tables, kinds):
        tables.setdefault(name, {})[key] = (value, variable)
    user_agent = settings.get("user_agent")
    return {name: _build(name, table, kinds, user_agent) for name, table in tables.items()}


def _environment_values(environ: Mapping[str, str], tables: Mapping[str, Any],
                        kinds: IdentityProviderRegistry) -> list[tuple[str, str, str, str]]:
    keys = sorted({*PROVIDER_KEYS, *(k for kind in kinds for k in kind.extra_keys)}, key=len, reverse=True)
    by_variable_name = {name.upper().replace("-", "_"): name for name in tables}
    found = []
    for variable, value in environ.items():
        if not variable.startswith(ENV_PREFIX):
            continue
        rest = variable[len(ENV_PREFIX):]
        key = next((k for k in keys if rest.endswith("_" + k.upper()) and len(rest) > len(k) + 1), None)
        if key is None:
            raise ConfigError(f"environment variable {variable}: expected {ENV_PREFIX}<NAME>_<KEY> with KEY one "
                              f"of {', '.join(k.upper() for k in PROVIDER_KEYS)}")
        provider_part = rest[: -len(key) - 1]
        name = by_variable_name.get(provider_part, provider_part.lower())
        found.append((name, key, value, variable))
    return found


def _build(name: str, table: dict[str, tuple[Any, str]], kinds: IdentityProviderRegistry,
           user_agent: str | None) -> IdentityProvider:
    table_origin = next(iter(table.values()))[1] if table else "the settings"

    def where(key: str) -> str:
        return f"setting '{SETTING}.{name}.{key}' (from {table[key][1] if key in table else table_origin})"

    if not _NAME_RE.match(name):
        raise ConfigError(f"identity provider name {name!r} (from {table_origin}): use "
                          "lower-case letters, digits, '-' and '_' (it is part of the callback URL)")
    if "kind" not in table:
        raise ConfigError(f"{where('kind')} is missing: say which kind of provider {name!r} is "
                          f"(known: {', '.join(kinds.names())})")
    kind_name = table["kind"][0]
    try:
        kind: type[IdentityProvider] = kinds.get(kind_name) if isinstance(kind_name, str) else None
    except UnknownNameError as exc:
        raise ConfigError(f"{where('kind')}: {exc}") from None
    if kind is None:
        raise ConfigError(f"{where('kind')}: expected a string, got {kind_name!r}")
    accepted = (*PROVIDER_KEYS, *kind.extra_keys)
    unknown = sorted(k for k in table if k not in accepted)
    if unknown:
        raise ConfigError(f"{where(unknown[0])}: unknown key for a provider of kind {kind.name!r} "
                          f"(accepted: {', '.join(accepted)})")
    options: dict[str, Any] = dict(kind.defaults)
    for key, (value, _) in table.items():
        if key != "kind":
            options[key] = _checked_value(key, value, where(key))
    missing = [key for key in kind.required_keys if not options.get(key)]
    if missing:
        raise ConfigError(f"{where(missing[0])} is required for a provider of kind {kind.name!r}")
    return kind(name, options, user_agent=user_agent)


def _checked_value(key: str, value: Any, where: str) -> Any:
    if key == "scopes":
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError(f"{where}: expected a list of scope names, got {value!r}")
        return [v.strip() for v in value]
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    value = value.strip()
    if key == "issuer" or key.endswith("_url"):
        problem = _url_problem(value)
        if problem:
            raise ConfigError(f"{where}: {problem}; got {value!r}")
    return value


def _url_problem(url: str) -> str | None:
    """Why *url* cannot be a provider endpoint: https only, except on this machine (tests, development)."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "must be an https:// URL"
    if parts.scheme == "http" and not _is_loopback(parts.hostname):
        return "must be an https:// URL (plain http is accepted only for localhost)"
    return None


def _is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
