"""Registries: case-insensitive lookups, canonical names, duplicates refused."""

import pytest

from anitrack_core.errors import DuplicateNameError, PluginError, UnknownNameError, UnknownSchemeError
from anitrack_core.registry import BackendRegistry, EcosystemRegistry, SchemeRegistry


class PyPI:
    name = "PyPI"

    def get_versions(self, project, http):
        return []


class Pypi2(PyPI):
    name = "pypi"


class PypiEcosystem:
    name = "pypi"
    default_backend = "PyPI"
    aliases = ["python"]


def test_lookup_is_case_insensitive_and_reports_canonical_name():
    registry = BackendRegistry()
    registry.add(PyPI)
    assert registry.get("pypi") is PyPI
    assert registry.get("PYPI") is PyPI
    assert registry.canonical_name("pYpI") == "PyPI"
    assert "pypi" in registry and "npm" not in registry
    assert registry.names() == ["PyPI"]


def test_duplicate_names_are_refused_ignoring_case():
    registry = BackendRegistry()
    registry.current_plugin = "first"
    registry.add(PyPI)
    registry.current_plugin = "second"
    with pytest.raises(DuplicateNameError, match=r"'pypi' is already registered by first \(as 'PyPI'\)"):
        registry.add(Pypi2)
    assert registry.get("pypi") is PyPI
    assert registry.plugin_of("PYPI") == "first"


def test_unknown_name_lists_known_ones():
    registry = BackendRegistry()
    registry.add(PyPI)
    with pytest.raises(UnknownNameError, match=r"unknown backend 'npm' \(known: PyPI\)"):
        registry.get("npm")
    assert registry.find("npm") is None
    assert registry.find(None) is None


def test_scheme_registry_raises_unknown_scheme_error():
    with pytest.raises(UnknownSchemeError, match="unknown version scheme 'Foo'"):
        SchemeRegistry().get("Foo")


def test_required_attributes_are_checked():
    class NoName:
        def get_versions(self, project, http):
            return []

    with pytest.raises(PluginError, match="lacks required attribute"):
        BackendRegistry().add(NoName)

    class EmptyName(PyPI):
        name = "  "

    with pytest.raises(PluginError, match="empty or non-string name"):
        BackendRegistry().add(EmptyName)


def test_ecosystems_found_by_alias_and_backend():
    registry = EcosystemRegistry()
    registry.add(PypiEcosystem)
    assert registry.find("Python") is PypiEcosystem
    assert registry.for_backend("pypi") is PypiEcosystem
    assert registry.for_backend("npmjs") is None


def test_an_ecosystem_alias_works_in_get_as_in_find():
    from anitrack_core.registry import EcosystemRegistry

    registry = EcosystemRegistry()
    crates = type("Crates", (), {"name": "crates.io", "default_backend": "crates.io", "aliases": ["cargo"]})
    registry.add(crates)
    assert registry.get("Cargo") is registry.find("cargo") is crates
    with pytest.raises(Exception, match="unknown ecosystem 'pip'"):
        registry.get("pip")
