"""Rules that derive a project's settings from its backend and ecosystem.

* The version scheme: the project's own, else its ecosystem's default, else
  its backend's default, else the global default ``RPM``.
* The version filter and the pre-release filter: the project's own, else its
  ecosystem's ``default_version_filter`` / ``default_pre_release_filter``,
  else its backend's (Go's ``+incompatible`` builds, say).
* The ecosystem: a project whose backend is an ecosystem's default backend
  belongs to that ecosystem; any other project's ``ecosystem_name`` is its
  homepage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import UnknownSchemeError

if TYPE_CHECKING:
    from .plugins import Plugins
    from .versions import VersionRules, VersionScheme

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


def validate_project(plugins: Plugins, project: Any) -> dict[str, str | None]:
    """Check the rules of *project* (a model, a spec or a dict of fields), stored or not.

    The one validation of a project's description beyond field types: the
    backend and scheme exist, the regex compiles, a backend that needs a
    version URL has one, and the version rules build (a Calendar pattern).

    :returns: the canonical ``backend`` and ``version_scheme`` names ("pypi" → "PyPI").
    :raises FieldError: naming the field at fault.
    """
    from .check.regex import DEFAULT_ALIAS, InvalidRegexError, compile_user_regex
    from .errors import ConfigError, FieldError, UnknownNameError

    get = project.get if isinstance(project, Mapping) else lambda key: getattr(project, key, None)
    try:
        backend = plugins.backends.get(get("backend") or "")
    except UnknownNameError as exc:
        raise FieldError("backend", str(exc)) from None
    scheme = get("version_scheme") or None
    if scheme:
        try:
            scheme = plugins.schemes.canonical_name(scheme)
        except UnknownNameError as exc:
            raise FieldError("version_scheme", str(exc)) from None
    regex = get("regex")
    if regex and regex != DEFAULT_ALIAS:
        try:
            compile_user_regex(regex)
        except InvalidRegexError as exc:
            raise FieldError("regex", str(exc)) from None
    if getattr(backend, "required_version_url", False) and not get("version_url"):
        raise FieldError("version_url", f"backend {backend.name!r} requires version_url")
    candidate = {**project_fields(project), "backend": backend.name, "version_scheme": scheme,
                 "ecosystem_name": assign_ecosystem(plugins, backend.name, get("homepage") or "").name}
    try:
        scheme_for(plugins, candidate)
    except ConfigError as exc:
        raise FieldError("version_pattern", f"version_pattern is invalid: {exc}") from None
    return {"backend": backend.name, "version_scheme": scheme}


def _default(plugins: Plugins, ecosystem_name: str | None, backend: str | None, attribute: str) -> str | None:
    """The ecosystem's value of class attribute *attribute*, else the backend's (None if neither gives one)."""
    for found in (plugins.ecosystems.find(ecosystem_name), plugins.backends.find(backend)):
        value = getattr(found, attribute, None) if found is not None else None
        if value:
            return value
    return None


def version_rules(plugins: Plugins, fields: Mapping[str, Any]) -> VersionRules:
    """The rules a project's versions are read with: its own, the filters defaulted as the module says.

    :param fields: the project's fields (``version_prefix``, ``pre_release_filter``, ``version_filter``,
        ``version_pattern``, ``ecosystem_name``, ``backend``); absent ones count as empty.
    """
    from .versions import VersionRules

    ecosystem, backend = fields.get("ecosystem_name"), fields.get("backend")
    return VersionRules(
        prefix=fields.get("version_prefix"),
        pre_release_filter=(fields.get("pre_release_filter")
                            or _default(plugins, ecosystem, backend, "default_pre_release_filter")),
        version_filter=(fields.get("version_filter")
                        or _default(plugins, ecosystem, backend, "default_version_filter")),
        pattern=fields.get("version_pattern"),
    )


def project_fields(project: Any) -> Mapping[str, Any]:
    """The fields of *project* (a model, a dict or anything with the attributes) as a mapping."""
    if isinstance(project, Mapping):
        return project
    return {name: getattr(project, name, None) for name in RULE_FIELDS}


#: the fields a project's version scheme depends on
RULE_FIELDS = ("version_scheme", "ecosystem_name", "backend", "version_prefix", "pre_release_filter",
               "version_filter", "version_pattern")


def scheme_for(plugins: Plugins, project: Any) -> VersionScheme:
    """A ready version scheme for *project* (a model, a dict of its fields or anything with them).

    :raises UnknownSchemeError: the scheme the project resolves to is not registered
        (listings read from the store use :class:`anitrack_core.listing.SchemeCache`, which falls
        back to ``RPM`` instead).
    """
    fields = project_fields(project)
    name = resolve_scheme_name(plugins, project_scheme=fields.get("version_scheme"),
                               ecosystem_name=fields.get("ecosystem_name"), backend=fields.get("backend"))
    return plugins.schemes.get(name)(version_rules(plugins, fields))


__all__ = ["EcosystemAssignment", "GLOBAL_DEFAULT_SCHEME", "RULE_FIELDS", "UnknownSchemeError", "assign_ecosystem",
           "ecosystem_value", "project_fields", "resolve_scheme_name", "scheme_for", "validate_project",
           "version_rules"]
