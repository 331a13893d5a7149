"""Mapping projects to distribution packages."""

from __future__ import annotations

import peewee

from ..errors import AlreadyExistsError, FieldError
from .models import Distro, Package, Project


def map_package(project: Project, distro: Distro, package_name: str) -> Package:
    """Map *package_name* of *distro* to *project*.

    :raises AlreadyExistsError: the distribution already has a package of that
        name (mapped to this or another project).
    """
    if len(package_name) > 200:
        raise FieldError("package_name", "package_name is too long (at most 200 characters)")
    try:
        with Package._meta.database.atomic():
            return Package.create(project=project, distro=distro, package_name=package_name,
                                  package_key=package_name.casefold())
    except peewee.IntegrityError:
        raise AlreadyExistsError("package already exists in distribution") from None
