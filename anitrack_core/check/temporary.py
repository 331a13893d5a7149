"""Checking a project that is not stored (``anitrack check --dry-run``, POST /api/v2/versions/)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..listing import list_versions
from ..resolve import assign_ecosystem, validate_project
from .spec import ProjectSpec

if TYPE_CHECKING:
    from .runner import Checker


def temporary_spec(fields: dict[str, Any]) -> ProjectSpec:
    """The spec of a project that is not stored (a dry run), from its fields (name, homepage, backend
    required); the version URL defaults to the homepage."""
    return ProjectSpec(id=None, name=fields["name"], homepage=fields["homepage"], backend=fields["backend"],
                       version_url=fields.get("version_url") or fields["homepage"], regex=fields.get("regex"),
                       version_scheme=fields.get("version_scheme"), version_pattern=fields.get("version_pattern"),
                       version_prefix=fields.get("version_prefix"),
                       pre_release_filter=fields.get("pre_release_filter"),
                       version_filter=fields.get("version_filter"), insecure=bool(fields.get("insecure")),
                       releases_only=bool(fields.get("releases_only")))


def validate_spec(checker: Checker, spec: ProjectSpec) -> ProjectSpec:
    """Canonical names and checked rules, as for a stored project (:func:`validate_project`).

    :raises FieldError: naming the field at fault.
    """
    names = validate_project(checker.plugins, spec)
    return replace(spec, **names, ecosystem_name=assign_ecosystem(checker.plugins, names["backend"],
                                                                   spec.homepage).name)


def check_temporary(checker: Checker, spec: ProjectSpec) -> dict[str, Any]:
    """Every version the upstream has for *spec*, newest first; or ``{"error": ...}``.

    :raises FieldError: the description of the project is invalid.
    """
    spec = validate_spec(checker, spec)
    scheme = checker.schemes.for_project(spec)
    outcome = checker.check_temporary(spec)
    if outcome.error is not None:
        return {"error": outcome.error}
    listing = list_versions(scheme, [rv.version for rv in outcome.versions])
    return {"versions": listing.versions, "latest_version": listing.versions[0] if listing.versions else None,
            "stable_versions": listing.stable_versions}
