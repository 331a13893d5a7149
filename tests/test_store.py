"""The store: constraints enforced by the database, cascades, ecosystem rules."""

import peewee
import pytest

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.db import accounts, distros, projects
from anitrack_core.db.migrate import pending, upgrade
from anitrack_core.db.models import ApiToken, Distro, Package, Project, ProjectFlag, ProjectVersion, User
from anitrack_core.errors import AlreadyExistsError, AnitrackError


class PyPIBackend(Backend):
    name = "PyPI"


class CustomBackend(Backend):
    name = "custom"


class FolderBackend(Backend):
    name = "folder"
    required_version_url = True


class PypiEcosystem:
    name = "pypi"
    default_backend = "PyPI"


class BackendsPlugin:
    @hookimpl
    def anitrack_register_backends(self, registry):
        for backend in (PyPIBackend, CustomBackend, FolderBackend):
            registry.add(backend)

    @hookimpl
    def anitrack_register_ecosystems(self, registry):
        registry.add(PypiEcosystem)


@pytest.fixture
def plugins(anitrack_plugins, register_plugin):
    info = register_plugin(BackendsPlugin(), "test-backends")
    assert info.status == "loaded", info.error
    return anitrack_plugins


def test_schema_is_current_and_upgrade_is_idempotent(anitrack_db):
    assert pending(anitrack_db) == []
    assert upgrade(anitrack_db) == []


def test_ecosystem_name_rules(anitrack_db, plugins):
    pypi = projects.create_project(plugins, name="requests", homepage="https://pypi.org/project/requests",
                                   backend="pypi")
    assert pypi.backend == "PyPI", "backend names are stored canonically"
    assert (pypi.ecosystem_name, pypi.in_ecosystem) == ("pypi", True)

    custom = projects.create_project(plugins, name="geany", homepage="https://www.geany.org/",
                                     backend="custom")
    assert (custom.ecosystem_name, custom.in_ecosystem) == ("https://www.geany.org/", False)

    changes = projects.update_project(plugins, pypi, homepage="https://requests.readthedocs.io")
    assert pypi.ecosystem_name == "pypi" and "ecosystem_name" not in changes
    changes = projects.update_project(plugins, pypi, backend="custom")
    assert pypi.ecosystem_name == "https://requests.readthedocs.io"
    assert changes["ecosystem_name"] == ("pypi", "https://requests.readthedocs.io")
    assert Project.get_by_id(pypi.id).ecosystem_name == "https://requests.readthedocs.io"


def test_name_unique_within_an_ecosystem_only(anitrack_db, plugins):
    first = projects.create_project(plugins, name="Requests", homepage="https://a", backend="PyPI")
    with pytest.raises(AlreadyExistsError, match="already exists in ecosystem 'pypi'") as caught:
        projects.create_project(plugins, name="requests", homepage="https://b", backend="PyPI")
    assert caught.value.existing.id == first.id
    assert Project.select().count() == 1
    # outside an ecosystem: no constraint at all, even for identical name and homepage
    for _ in range(2):
        projects.create_project(plugins, name="requests", homepage="https://a", backend="custom")
    assert Project.select().count() == 3


def test_the_database_itself_enforces_the_ecosystem_constraint(anitrack_db):
    common = dict(homepage="h", backend="PyPI", ecosystem_name="pypi", ecosystem_key="pypi")
    Project.create(name="x", name_key="x", in_ecosystem=True, **common)
    with pytest.raises(peewee.IntegrityError):
        with anitrack_db.atomic():
            Project.create(name="X", name_key="x", in_ecosystem=True, **common)
    Project.create(name="x", name_key="x", in_ecosystem=False, **common)


def test_validation_names_the_field(anitrack_db, plugins):
    with pytest.raises(AnitrackError, match="homepage is required"):
        projects.create_project(plugins, name="x", backend="custom")
    with pytest.raises(AnitrackError, match="name is required"):
        projects.create_project(plugins, name="  ", homepage="h", backend="custom")
    with pytest.raises(AnitrackError, match="unknown backend .nope."):
        projects.create_project(plugins, name="x", homepage="h", backend="nope")
    with pytest.raises(AnitrackError, match="unknown version scheme .Debian."):
        projects.create_project(plugins, name="x", homepage="h", backend="custom", version_scheme="Debian")
    with pytest.raises(AnitrackError, match="backend 'folder' requires version_url"):
        projects.create_project(plugins, name="x", homepage="h", backend="folder")
    with pytest.raises(AnitrackError, match="name is too long"):
        projects.create_project(plugins, name="x" * 201, homepage="h", backend="custom")
    with pytest.raises(AnitrackError, match="insecure must be true or false"):
        projects.create_project(plugins, name="x", homepage="h", backend="custom", insecure="yes")
    with pytest.raises(AnitrackError, match="unknown project field"):
        projects.create_project(plugins, name="x", homepage="h", backend="custom", colour="red")
    with pytest.raises(AnitrackError, match="version_pattern is invalid: .*unknown token .AAA."):
        projects.create_project(plugins, name="x", homepage="h", backend="custom", version_scheme="calendar",
                                version_pattern="AAA")
    assert Project.select().count() == 0, "nothing is written on bad input"


def test_scheme_name_is_canonicalised(anitrack_db, plugins):
    project = projects.create_project(plugins, name="x", homepage="h", backend="custom",
                                      version_scheme="semantic")
    assert project.version_scheme == "Semantic"


def test_deleting_a_project_cascades(anitrack_db, plugins):
    project = projects.create_project(plugins, name="x", homepage="h", backend="custom")
    other = projects.create_project(plugins, name="y", homepage="h", backend="custom")
    fedora, _ = distros.add_distro("Fedora")
    Package.create(distro=fedora, project=project, package_name="python-x", package_key="python-x")
    Package.create(distro=fedora, project=other, package_name="python-y", package_key="python-y")
    ProjectVersion.create(project=project, version="1.0")
    ProjectVersion.create(project=other, version="1.0")
    ProjectFlag.create(project=project, reason="dup", user="a@example.org")
    projects.delete_project(project)
    assert Package.select().count() == 1
    assert ProjectVersion.select().count() == 1
    assert ProjectFlag.select().count() == 0
    assert Distro.select().count() == 1


def test_package_unique_per_distro(anitrack_db, plugins):
    project = projects.create_project(plugins, name="x", homepage="h", backend="custom")
    fedora, _ = distros.add_distro("Fedora")
    debian, _ = distros.add_distro("Debian")
    Package.create(distro=fedora, project=project, package_name="x", package_key="x")
    Package.create(distro=debian, project=project, package_name="x", package_key="x")
    with pytest.raises(peewee.IntegrityError):
        with anitrack_db.atomic():
            Package.create(distro=fedora, project=project, package_name="x", package_key="x")


def test_version_unique_per_project(anitrack_db, plugins):
    project = projects.create_project(plugins, name="x", homepage="h", backend="custom")
    ProjectVersion.create(project=project, version="1.0")
    with pytest.raises(peewee.IntegrityError):
        with anitrack_db.atomic():
            ProjectVersion.create(project=project, version="1.0")


def test_distro_add_is_idempotent_and_case_insensitive(anitrack_db):
    fedora, created = distros.add_distro("Fedora")
    again, created_again = distros.add_distro("fedora")
    assert created and not created_again and again.id == fedora.id and again.name == "Fedora"
    with pytest.raises(AnitrackError, match="1 to 200 characters"):
        distros.add_distro("  ")


def test_users_and_tokens(anitrack_db):
    user = accounts.add_user("Alice@Example.org", "alice", admin=True)
    assert len(str(user.id)) == 36 and User.get_by_id(user.id).admin
    with pytest.raises(AlreadyExistsError, match="already exists"):
        accounts.add_user("alice@example.org", "alice2")
    with pytest.raises(AnitrackError, match="invalid e-mail"):
        accounts.add_user("not-an-email", "bob")
    secret = accounts.add_token(accounts.find_user("ALICE@example.org"), "ci")
    assert len(secret) == 40 and secret.isalnum()
    stored = ApiToken.get()
    assert stored.token != secret and len(stored.token) == 40, "only a digest is stored"
    assert accounts.user_for_token(secret).id == user.id
    assert accounts.user_for_token(secret[:-1] + ("A" if secret[-1] != "A" else "B")) is None
    assert accounts.user_for_token("short") is None
    assert accounts.user_for_token(None) is None
    User.update(active=False).execute()
    assert accounts.user_for_token(secret) is None, "tokens of inactive users are refused"


def test_token_length_is_enforced_by_the_database(anitrack_db):
    user = accounts.add_user("a@example.org", "a")
    with pytest.raises(peewee.IntegrityError):
        with anitrack_db.atomic():
            ApiToken.create(token="x" * 39, hint="x", user=user)


def test_deleting_a_user_deletes_their_tokens(anitrack_db):
    user = accounts.add_user("a@example.org", "a")
    accounts.add_token(user)
    user.delete_instance()
    assert ApiToken.select().count() == 0


def test_runs_on_the_database_the_environment_selects(anitrack_db):
    import os

    expected = {"sqlite": peewee.SqliteDatabase, "postgres": peewee.PostgresqlDatabase}
    assert isinstance(anitrack_db, expected[os.environ.get("ANITRACK_TEST_DB", "sqlite")])
    if isinstance(anitrack_db, peewee.SqliteDatabase):
        assert anitrack_db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert anitrack_db.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
