"""The actions of the web pages in the store: each writes its change and one event that anitya-schema accepts."""

from __future__ import annotations

from datetime import datetime

import pytest

from anitrack_core.db import distros, flags, packages, projects
from anitrack_core.db.history import project_history
from anitrack_core.db.models import Distro, Package, Project, ProjectFlag, ProjectVersion
from anitrack_core.db.listings import refresh_listings
from anitrack_core.errors import AlreadyExistsError, FieldError
from anitrack_core.listing import SchemeCache

from .conftest import outbox, validated

ADMIN = "admin@example.org"


@pytest.fixture
def store(runtime):
    with runtime.db.connection_context():
        yield runtime


def new_project(runtime, name="geany", versions=()):
    project = projects.create_project(runtime.plugins, name=name, homepage=f"https://{name}.example/",
                                      backend="custom", version_url=f"https://{name}.example/dl/")
    for index, version in enumerate(versions):
        ProjectVersion.create(project=project, version=version, created_on=datetime(2024, 1, 1 + index))
    if versions:
        refresh_listings(SchemeCache(runtime.plugins), [project.id])
        Project.update(latest_version=versions[-1], http_etag='"x"').where(Project.id == project.id).execute()
    return Project.get_by_id(project.id)


def events_after(runtime, first_id=0):
    rows = [row for row in outbox(runtime) if row["id"] > first_id]
    for row in rows:
        validated(row["topic"], row["body"])
    return rows


def last_id(runtime):
    rows = outbox(runtime)
    return rows[-1]["id"] if rows else 0


def test_mapping_update_and_removal(store):
    fedora, _ = distros.add_distro("Fedora")
    debian, _ = distros.add_distro("Debian")
    project = new_project(store)
    other = new_project(store, "other")
    package = packages.map_package(project, fedora, "geany")
    packages.map_package(other, fedora, "taken")
    start = last_id(store)

    assert packages.update_mapping(package, fedora, "geany") == []
    assert packages.update_mapping(package, fedora, "geany-ide", agent=ADMIN) == ["package_name"]
    assert packages.update_mapping(package, debian, "geany-ide", agent=ADMIN) == ["distribution"]
    with pytest.raises(AlreadyExistsError) as clash:
        packages.update_mapping(package, fedora, "taken")
    assert clash.value.existing.name == "other"
    with pytest.raises(FieldError):
        packages.update_mapping(package, fedora, " ")
    packages.delete_mapping(Package.get_by_id(package.id), agent=ADMIN)
    assert Package.get_or_none(Package.id == package.id) is None

    rows = events_after(store, start)
    assert [row["topic"] for row in rows] == ["project.map.update", "project.map.update", "project.map.remove"]
    first, second, removed = (row["body"] for row in rows)
    assert first["distro"] == {"name": "Fedora"}
    assert first["message"] == {"agent": ADMIN, "project": "geany", "distro": "Fedora", "prev": "geany",
                                "new": "geany-ide", "edited": ["package_name"]}
    assert second["distro"] == {"name": "Debian"} and second["message"]["edited"] == ["distribution"]
    assert removed["distro"] is None
    assert removed["message"] == {"agent": ADMIN, "project": "geany", "distro": "Debian", "package_name": "geany-ide"}
    assert [change.topic for change in project_history(project.id)][:3] == [
        "project.map.remove", "project.map.update", "project.map.update"]


def test_map_package_clash_names_the_project(store):
    fedora, _ = distros.add_distro("Fedora")
    owner = new_project(store, "owner")
    packages.map_package(owner, fedora, "pkg")
    with pytest.raises(AlreadyExistsError) as clash:
        packages.map_package(new_project(store, "second"), fedora, "pkg")
    assert clash.value.existing.id == owner.id


def test_distro_rename_and_delete(store):
    fedora, _ = distros.add_distro("fedora")
    distros.add_distro("Debian")
    project = new_project(store)
    packages.map_package(project, fedora, "geany")
    start = last_id(store)
    assert distros.rename_distro(fedora, "fedora") is False
    with pytest.raises(AlreadyExistsError):
        distros.rename_distro(fedora, "DEBIAN")
    with pytest.raises(FieldError):
        distros.rename_distro(fedora, "")
    assert distros.rename_distro(fedora, "Fedora", agent=ADMIN) is True
    assert Distro.get_by_id(fedora.id).name == "Fedora"
    assert distros.delete_distro(Distro.get_by_id(fedora.id), agent=ADMIN) == 1
    assert Package.select().count() == 0 and distros.find_distro("fedora") is None
    rows = events_after(store, start)
    assert [row["topic"] for row in rows] == ["distro.edit", "distro.remove"]
    assert rows[0]["body"] == {"project": None, "distro": {"name": "fedora"},
                               "message": {"agent": ADMIN, "old": "fedora", "new": "Fedora"}}
    assert rows[1]["body"] == {"project": None, "distro": {"name": "Fedora"},
                               "message": {"agent": ADMIN, "distro": "Fedora"}}
    assert all(row["project_id"] is None for row in rows)


def test_flags(store):
    fedora, _ = distros.add_distro("Fedora")
    project = new_project(store)
    packages.map_package(project, fedora, "geany")
    start = last_id(store)
    with pytest.raises(FieldError) as empty:
        flags.flag_project(project, "  ", user="a@example.org")
    assert empty.value.field == "reason"
    with pytest.raises(FieldError):
        flags.flag_project(project, "x" * (flags.REASON_MAX + 1), user="a@example.org")
    flag = flags.flag_project(project, "moved to GitHub", user="a@example.org")
    assert flags.set_flag_state(flag, "open", agent=ADMIN) is False
    assert flags.set_flag_state(flag, "closed", agent=ADMIN) is True
    assert ProjectFlag.get_by_id(flag.id).state == "closed"
    with pytest.raises(FieldError):
        flags.set_flag_state(flag, "maybe")
    rows = events_after(store, start)
    assert [row["topic"] for row in rows] == ["project.flag", "project.flag.set"]
    assert rows[0]["body"]["message"] == {"agent": "a@example.org", "project": "geany", "reason": "moved to GitHub",
                                          "packages": [{"package_name": "geany", "distro": "Fedora"}]}
    assert rows[1]["body"]["project"] is None and rows[1]["body"]["distro"] is None
    assert rows[1]["body"]["message"]["flag"] == flag.id and rows[1]["body"]["message"]["state"] == "closed"
    assert rows[1]["project_id"] == project.id
    history = project_history(project.id)
    assert history[0].topic == "project.flag.set" and history[0].project_name == "geany"


def test_delete_versions_recomputes_the_latest_and_the_listing(store):
    project = new_project(store, versions=["1.0", "1.1", "2.0"])
    start = last_id(store)
    assert projects.delete_versions(store.plugins, project, ["nope"]) == []
    assert projects.delete_versions(store.plugins, project, ["2.0"], agent=ADMIN) == ["2.0"]
    stored = Project.get_by_id(project.id)
    assert stored.latest_version == "1.1" and stored.http_etag is None
    assert project.latest_version == "1.1"
    assert projects.delete_versions(store.plugins, project, ["1.0"], agent=ADMIN) == ["1.0"]
    assert projects.delete_versions(store.plugins, project, agent=ADMIN) == ["1.1"]
    assert Project.get_by_id(project.id).latest_version is None
    assert ProjectVersion.select().count() == 0
    rows = events_after(store, start)
    assert [row["topic"] for row in rows] == ["project.version.remove.v2"] * 3
    first = rows[0]["body"]
    assert first["message"] == {"agent": ADMIN, "project": "geany", "versions": ["2.0"]}
    assert first["project"]["version"] == "1.1" and first["project"]["versions"] == ["1.1", "1.0"]
    assert rows[2]["body"]["project"]["versions"] == []


def test_archiving_is_an_edit_of_archived_only(store):
    project = new_project(store)
    Project.update(version_filter="rc", pre_release_filter="beta").where(Project.id == project.id).execute()
    project = Project.get_by_id(project.id)
    start = last_id(store)
    assert projects.update_project(store.plugins, project, agent=ADMIN, archived=True) == {"archived": (False, True)}
    stored = Project.get_by_id(project.id)
    assert stored.archived and stored.version_filter == "rc" and stored.pre_release_filter == "beta"
    assert projects.update_project(store.plugins, stored, agent=ADMIN, archived=True) == {}
    rows = events_after(store, start)
    assert [row["topic"] for row in rows] == ["project.edit"]
    assert rows[0]["body"]["message"]["changes"] == {"archived": {"old": False, "new": True}}
