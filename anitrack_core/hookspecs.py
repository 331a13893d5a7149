"""Hook specifications: the whole contract between anitrack and its plugins.

A plugin is a module (or object) with functions decorated by
:data:`anitrack_core.hookimpl`, published under the entry-point group
``anitrack``.  Every hook here is documented in ``docs/plugin_hooks.md``; a
test fails when one is not.

Rules for implementations: take only the arguments you need, never give them
default values, and do not rely on the order in which plugins are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from . import PROJECT_NAME

if TYPE_CHECKING:
    from .check.result import CheckResult, CheckedProject
    from .config import SettingsSpec
    from .registry import BackendRegistry, EcosystemRegistry, IdentityProviderRegistry, SchemeRegistry

_spec = pluggy.HookspecMarker(PROJECT_NAME)

__all__ = [
    "anitrack_register_backends",
    "anitrack_register_ecosystems",
    "anitrack_register_version_schemes",
    "anitrack_register_identity_providers",
    "anitrack_declare_settings",
    "anitrack_project_checked",
]


# ---- Registration hooks: called once per plugin when the plugins are loaded ----


@_spec
def anitrack_register_backends(registry: BackendRegistry) -> None:
    """Register backend classes.

    :param registry: call ``registry.add(BackendClass)`` for each backend.  The
        class derives from :class:`anitrack_core.backend.Backend`.
    :raises DuplicateNameError: (from ``add``) the name is taken, ignoring case;
        the plugin is then reported broken and none of its registrations are kept.
    """


@_spec
def anitrack_register_ecosystems(registry: EcosystemRegistry) -> None:
    """Register ecosystem classes (language package indexes such as ``pypi``).

    :param registry: call ``registry.add(EcosystemClass)`` for each ecosystem.
        The class derives from :class:`anitrack_core.ecosystem.Ecosystem`.
    """


@_spec
def anitrack_register_version_schemes(registry: SchemeRegistry) -> None:
    """Register version scheme classes.

    The core's own schemes (``RPM``, ``Semantic``, ``Calendar``,
    ``Python (PEP 440)``) are registered through this same hook.

    :param registry: call ``registry.add(SchemeClass)`` for each scheme.  The
        class derives from :class:`anitrack_core.versions.VersionScheme`.
    """


@_spec
def anitrack_register_identity_providers(registry: IdentityProviderRegistry) -> None:
    """Register kinds of identity provider that people sign in with.

    The core's own kinds (``oidc``, ``oauth2`` and the presets ``github``,
    ``gitlab``, ``google``, ``fedora``) are registered through this same hook.
    An operator enables a provider of a kind with an ``[auth.providers.<name>]``
    table whose ``kind`` is the class's ``name``.

    :param registry: call ``registry.add(ProviderClass)`` for each kind.  The
        class derives from :class:`anitrack_core.identity.OidcProvider` or
        :class:`anitrack_core.identity.OAuth2Provider`.
    """


@_spec
def anitrack_declare_settings(settings: SettingsSpec) -> None:
    """Declare the settings a plugin reads, in a section of its own.

    :param settings: call ``settings.add("section.key", type=..., default=...,
        help=..., secret=...)``.  Values then come from the ``[section]`` table
        of the TOML file or the ``ANITRACK_SECTION_KEY`` environment variable;
        an undeclared key in the file is an error at start-up.
    """


# ---- Observation hooks: called while anitrack works ----


@_spec
def anitrack_project_checked(project: CheckedProject, result: CheckResult) -> None:
    """Observe the outcome of one check of one project.

    Called after the check's changes are committed (or rolled back, for a dry
    run), once per check, successful or not.  An exception raised here is
    logged and does not affect the check or the other plugins.

    :param project: a read-only snapshot of the project after the check.
    :param result: what the check found: new versions, error, rate limit.
    """
