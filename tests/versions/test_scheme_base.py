"""What every scheme gets from the base class, and the built-in plugin."""

from __future__ import annotations

import re
from pathlib import Path

import pluggy
import pytest

from anitrack_core import PROJECT_NAME, hookspecs
from anitrack_core.builtin import schemes as builtin_schemes
from anitrack_core.registry import SchemeRegistry
from anitrack_core.versions import (
    CalendarScheme,
    Pep440Scheme,
    RpmScheme,
    SemanticScheme,
    VersionRules,
    VersionScheme,
)


def test_newest_first_keeps_equal_versions_in_order() -> None:
    scheme = RpmScheme()
    assert scheme.newest_first(["1.0", "2.0", "v1.0", "", "1.0rc1", "junk"]) == [
        "2.0", "1.0", "v1.0", "1.0rc1", "junk", ""]
    assert scheme.newest_first(["v1.0", "1.0"]) == ["v1.0", "1.0"]
    # users see the display form: duplicates are possible
    assert [scheme.display(raw) for raw in scheme.newest_first(["1.0", "v1.0"])] == ["1.0", "1.0"]


def test_latest_and_latest_stable() -> None:
    scheme = RpmScheme()
    raws = ["1.0", "2.0rc1", "1.5", "v1.5"]
    assert scheme.latest(raws) == "2.0rc1"
    assert scheme.latest_stable(raws) == "1.5"  # the first of two equal ones
    assert scheme.latest([]) is None
    assert scheme.latest_stable(["2.0rc1"]) is None
    assert scheme.latest(iter(raws)) == "2.0rc1"


def test_latest_stable_uses_the_pre_release_filter() -> None:
    scheme = RpmScheme(VersionRules(pre_release_filter="!odds"))
    assert scheme.latest_stable(["1.2.0", "1.3.0", "1.3.1"]) == "1.2.0"


def test_is_newer() -> None:
    scheme = SemanticScheme()
    assert scheme.is_newer("1.2.0", ["1.0.0", "1.1.0", "junk"])
    assert not scheme.is_newer("1.2.0", ["1.2.0"])
    assert not scheme.is_newer("v1.2.0", ["1.2.0+build"])
    assert scheme.is_newer("1.0.0", [])


def test_keep_drops_filtered_versions_only() -> None:
    scheme = RpmScheme(VersionRules(prefix="v", version_filter="rc;v2.0"))
    assert scheme.keep(["1.0", "1.1rc1", "2.0.1", "v2.1", "3.0"]) == ["1.0", "v2.1", "3.0"]
    assert scheme.is_filtered_out("1.1rc1")
    assert RpmScheme().keep(["b", "a"]) == ["b", "a"]


def test_compare() -> None:
    scheme = RpmScheme()
    assert scheme.compare("1.0", "1.1") == -1
    assert scheme.compare("1.1", "1.0") == 1
    assert scheme.compare("1.0", "v1.0") == 0


@pytest.mark.parametrize("scheme", [RpmScheme(), SemanticScheme(), Pep440Scheme(),
                                    CalendarScheme(VersionRules(pattern="YYYY.MINOR"))])
def test_invalid_sorts_below_valid(scheme: VersionScheme) -> None:
    valid = {"RPM": "0", "Semantic": "0.0.0", "Python (PEP 440)": "0", "Calendar": "1000.0"}[scheme.name]
    assert scheme.is_valid(valid)
    for invalid in ["", "~~", "zzz", "\x00", "\U0001d7d7.9.9"]:
        if not scheme.is_valid(invalid):
            assert scheme.compare(invalid, valid) == -1, invalid


@pytest.mark.parametrize("scheme", [RpmScheme, SemanticScheme, Pep440Scheme])
def test_prefix_and_v_do_not_change_a_version(scheme: type[VersionScheme]) -> None:
    prefixed = scheme(VersionRules(prefix="prefix"))
    assert prefixed.compare("1.0.0", "v1.0.0") == 0
    assert prefixed.compare("1.0.0", "prefix1.0.0") == 0
    assert prefixed.display("prefix1.0.0") == "1.0.0"


@pytest.mark.parametrize("scheme", [RpmScheme, SemanticScheme, Pep440Scheme])
def test_pre_release_filter_applies_to_invalid_versions(scheme: type[VersionScheme]) -> None:
    assert scheme(VersionRules(pre_release_filter="nightly")).is_prerelease("nightly")


def test_validate_message_names_the_raw_string_and_scheme() -> None:
    with pytest.raises(ValueError, match=r"^'v1\.0' is not a valid Semantic version: "):
        SemanticScheme().validate("v1.0")


def test_builtin_plugin_registers_the_four_schemes() -> None:
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    pm.register(builtin_schemes)
    registry = SchemeRegistry()
    pm.hook.anitrack_register_version_schemes(registry=registry)
    assert registry.names() == ["RPM", "Semantic", "Calendar", "Python (PEP 440)"]
    assert registry.get("calendar") is CalendarScheme
    assert registry.get("python (pep 440)") is Pep440Scheme
    for cls in registry:
        assert cls.description.endswith(".")
        assert cls.needs_pattern is (cls is CalendarScheme)


def test_docs_table_of_schemes() -> None:
    """docs/versions.md lists every built-in scheme by its exact name, with an order that holds."""
    docs = Path(__file__).resolve().parents[2] / "docs" / "versions.md"
    rows = re.findall(r"^\| `([^`]+)` \| [^|]+ \| `([^`]+ < [^`]+)` \|$", docs.read_text(), re.MULTILINE)
    assert [name for name, _ in rows] == ["RPM", "Semantic", "Calendar", "Python (PEP 440)"]
    for name, chain in rows:
        scheme = {"RPM": RpmScheme(), "Semantic": SemanticScheme(), "Python (PEP 440)": Pep440Scheme(),
                  "Calendar": CalendarScheme(VersionRules(pattern="YYYY.0M.0D-MODIFIER"))}[name]
        versions = chain.split(" < ")
        assert scheme.newest_first(versions) == versions[::-1], name
