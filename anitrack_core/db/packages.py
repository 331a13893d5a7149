"""Mapping projects to distribution packages."""

from __future__ import annotations

import peewee

from .. import events
from ..errors import AlreadyExistsError, FieldError
from ..events import messages
from .models import Distro, Package, Project


def map_package(project: Project, distro: Distro, package_name: str, *, agent: str | None = None) -> Package:
    """Map *package_name* of *distro* to *project*; announces ``project.map.new`` by *agent*.

    :raises AlreadyExistsError: the distribution already has a package of that
        name (mapped to this or another project).
    """
    if len(package_name) > 200:
        raise FieldError("package_name", "package_name is too long (at most 200 characters)")
    try:
        with Package._meta.database.atomic():
            package = Package.create(project=project, distro=distro, package_name=package_name,
                                     package_key=package_name.casefold())
            events.record("project.map.new",
                          messages.map_new(project, distro.name, package_name, agent or events.SYSTEM_AGENT),
                          project_id=project.id)
            return package
    except peewee.IntegrityError:
        raise AlreadyExistsError("package already exists in distribution") from None
