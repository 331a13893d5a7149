"""Mapping projects to distribution packages: create, change and delete mappings."""

from __future__ import annotations

import peewee

from .. import events
from ..errors import AlreadyExistsError, FieldError
from ..events import messages
from .models import Distro, Package, Project

PACKAGE_NAME_MAX = 200


def _clean_name(package_name: str) -> str:
    package_name = (package_name or "").strip()
    if not package_name:
        raise FieldError("package_name", "package_name is required")
    if len(package_name) > PACKAGE_NAME_MAX:
        raise FieldError("package_name", f"package_name is too long (at most {PACKAGE_NAME_MAX} characters)")
    return package_name


def mapped_package(distro: Distro, package_name: str) -> Package | None:
    """The package *package_name* of *distro* (exact name), with its project, if it is mapped."""
    return (Package.select(Package, Project).join(Project)
            .where((Package.distro == distro.id) & (Package.package_name == package_name)).first())


def _clash(distro: Distro, package_name: str) -> AlreadyExistsError:
    error = AlreadyExistsError("package already exists in distribution")
    existing = mapped_package(distro, package_name)
    error.existing = existing.project if existing is not None else None  # type: ignore[attr-defined]
    return error


def map_package(project: Project, distro: Distro, package_name: str, *, agent: str | None = None) -> Package:
    """Map *package_name* of *distro* to *project*; announces ``project.map.new`` by *agent*.

    :raises AlreadyExistsError: the distribution already has a package of that
        name (mapped to this or another project); ``exc.existing`` is that project.
    """
    if len(package_name) > PACKAGE_NAME_MAX:
        raise FieldError("package_name", f"package_name is too long (at most {PACKAGE_NAME_MAX} characters)")
    try:
        with Package._meta.database.atomic():
            package = Package.create(project=project, distro=distro, package_name=package_name,
                                     package_key=package_name.casefold())
            events.record("project.map.new",
                          messages.map_new(project, distro.name, package_name, agent or events.SYSTEM_AGENT),
                          project_id=project.id)
            return package
    except peewee.IntegrityError:
        raise _clash(distro, package_name) from None


def update_mapping(package: Package, distro: Distro, package_name: str, *, agent: str | None = None) -> list[str]:
    """Move *package* to *distro* / *package_name*; returns what changed (``distribution``,
    ``package_name``), announced as ``project.map.update`` by *agent*; nothing changed, nothing announced.

    :raises FieldError: the package name is empty or too long.
    :raises AlreadyExistsError: that package is already mapped; ``exc.existing`` is its project.
    """
    package_name = _clean_name(package_name)
    old_distro = Distro.get_by_id(package.distro_id)
    prev = package.package_name
    edited = [name for name, changed in (("distribution", distro.id != old_distro.id),
                                          ("package_name", package_name != prev)) if changed]
    if not edited:
        return []
    project = Project.get_by_id(package.project_id)
    try:
        with Package._meta.database.atomic():
            (Package.update(distro=distro.id, package_name=package_name, package_key=package_name.casefold())
             .where(Package.id == package.id).execute())
            events.record("project.map.update",
                          messages.map_update(project, distro.name, prev, package_name, edited,
                                              agent or events.SYSTEM_AGENT),
                          project_id=project.id)
    except peewee.IntegrityError:
        raise _clash(distro, package_name) from None
    package.distro, package.package_name, package.package_key = distro, package_name, package_name.casefold()
    return edited


def delete_mapping(package: Package, *, agent: str | None = None) -> None:
    """Delete the mapping *package*; announced as ``project.map.remove`` by *agent*."""
    project = Project.get_by_id(package.project_id)
    distro = Distro.get_by_id(package.distro_id)
    with Package._meta.database.atomic():
        Package.delete().where(Package.id == package.id).execute()
        events.record("project.map.remove",
                      messages.map_remove(project, distro.name, package.package_name, agent or events.SYSTEM_AGENT),
                      project_id=project.id)
