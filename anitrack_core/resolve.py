"""Rules that derive a project's settings from its backend and ecosystem.

* The version scheme: the project's own, else its ecosystem's default, else
  its backend's default, else the global default ``RPM``.
* The ecosystem: a project whose backend is an ecosystem's default backend
  belongs to that ecosystem; any other project's ``ecosystem_name`` is its
  homepage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import UnknownSchemeError

if TYPE_CHECKING:
    from .plugins import Plugins
    from .versions import VersionScheme

GLOBAL_DEFAULT_SCHEME = "RPM"


@dataclass(frozen=True)
class EcosystemAssignment:
    """The ecosystem a project belongs to."""

    #: stored in ``project.ecosystem_name``: the ecosystem name, or the homepage
    name: str
    #: True when *name* is a registered ecosystem (names are then unique within it)
    registered: bool


def assign_ecosystem(plugins: Plugins, backend: str, homepage: str) -> EcosystemAssignment:
    """The ecosystem of a project with this backend and homepage."""
    ecosystem = plugins.ecosystems.for_backend(backend) if backend else None
    if ecosystem is not None:
        return EcosystemAssignment(ecosystem.name, True)
    return EcosystemAssignment(homepage, False)


def ecosystem_value(plugins: Plugins, given: str) -> str:
    """The stored ``ecosystem_name`` a client means: an alias ("cargo") becomes its ecosystem's name."""
    ecosystem = plugins.ecosystems.find(given.strip()) if given else None
    return ecosystem.name if ecosystem is not None else given


def resolve_scheme_name(
    plugins: Plugins,
    *,
    project_scheme: str | None,
    ecosystem_name: str | None,
    backend: str | None,
) -> str:
    """The canonical name of the scheme a project sorts its versions with.

    :raises UnknownSchemeError: the chosen name is not a registered scheme.
    """
    chosen = project_scheme or None
    if not chosen:
        ecosystem = plugins.ecosystems.find(ecosystem_name)
        chosen = getattr(ecosystem, "default_version_scheme", None) if ecosystem else None
    if not chosen:
        backend_cls = plugins.backends.find(backend)
        chosen = getattr(backend_cls, "default_version_scheme", None) if backend_cls else None
    return plugins.schemes.canonical_name(chosen or GLOBAL_DEFAULT_SCHEME)


def scheme_for(plugins: Plugins, project: Any) -> VersionScheme:
    """A ready version scheme for *project* (a model or anything with its fields)."""
    from .versions import VersionRules

    name = resolve_scheme_name(
        plugins,
        project_scheme=getattr(project, "version_scheme", None),
        ecosystem_name=getattr(project, "ecosystem_name", None),
        backend=getattr(project, "backend", None),
    )
    rules = VersionRules(
        prefix=getattr(project, "version_prefix", None),
        pre_release_filter=getattr(project, "pre_release_filter", None),
        version_filter=getattr(project, "version_filter", None),
        pattern=getattr(project, "version_pattern", None),
    )
    return plugins.schemes.get(name)(rules)


__all__ = ["EcosystemAssignment", "GLOBAL_DEFAULT_SCHEME", "UnknownSchemeError", "assign_ecosystem", "ecosystem_value",
           "resolve_scheme_name", "scheme_for"]
