"""Helpers shared by the web tests: seeding the store directly."""

from __future__ import annotations

from datetime import datetime, timedelta

from anitrack_core.db import packages, projects
from anitrack_core.db.distros import find_distro
from anitrack_core.db.listings import refresh_listings
from anitrack_core.listing import SchemeCache
from anitrack_core.db.models import Project, ProjectVersion


def add_project(api, *, versions=(), latest=None, packages_=(), **fields):
    """Create a project (and its versions and mappings) straight in the store; returns its id."""
    fields.setdefault("backend", "custom")
    fields.setdefault("version_url", fields.get("homepage"))
    with api.runtime.db.connection_context():
        project = projects.create_project(api.runtime.plugins, **fields)
        for index, version in enumerate(versions):
            ProjectVersion.create(project=project, version=version, created_on=datetime(2024, 1, 1) + timedelta(days=index))
        refresh_listings(SchemeCache(api.runtime.plugins), [project.id])
        if latest is not None:
            Project.update(latest_version=latest).where(Project.id == project.id).execute()
        for distro, name in packages_:
            packages.map_package(project, find_distro(distro), name)
        return project.id


def count_rows(api, model):
    with api.runtime.db.connection_context():
        return model.select().count()
