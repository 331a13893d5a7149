"""The documentation keeps up with the code."""

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def hook_names(pm):
    return sorted(name for name in dir(pm.hook) if name.startswith("anitrack_"))


def test_hooks_exist(anitrack_plugins):
    assert len(hook_names(anitrack_plugins.pm)) >= 5


def test_every_hook_is_documented_with_its_signature(anitrack_plugins):
    text = (DOCS / "plugin_hooks.md").read_text(encoding="utf-8")
    for name in hook_names(anitrack_plugins.pm):
        args = ", ".join(getattr(anitrack_plugins.pm.hook, name).spec.argnames)
        assert f"## {name}({args})" in text, f"hook {name} is not documented in docs/plugin_hooks.md"


def test_no_documented_hook_is_missing_from_the_code(anitrack_plugins):
    import re

    text = (DOCS / "plugin_hooks.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^## (anitrack_\w+)\(", text, flags=re.M))
    assert documented == set(hook_names(anitrack_plugins.pm))


@pytest.mark.parametrize("command", ["db upgrade", "user add", "token add", "distro add", "plugins"])
def test_operator_commands_are_documented(command):
    assert f"anitrack {command}" in (DOCS / "operator-guide.md").read_text(encoding="utf-8")


def test_every_plugin_distribution_is_tested_by_tox():
    root = DOCS.parent
    tox = (root / "tox.ini").read_text(encoding="utf-8")
    for pyproject in sorted((root / "plugins").glob("*/pyproject.toml")):
        assert f"-e plugins/{pyproject.parent.name}" in tox, f"{pyproject.parent.name} missing from tox.ini deps"


def _http_section() -> str:
    text = (DOCS / "plugin_hooks.md").read_text(encoding="utf-8")
    start = text.index("## The `http` object")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def test_every_public_method_of_the_http_object_is_documented():
    import inspect

    from anitrack_core.check.http import CheckHttp

    section = _http_section()
    methods = [name for name, member in inspect.getmembers(CheckHttp, inspect.isfunction)
               if not name.startswith("_")]
    assert {"get", "post", "fetch", "get_json", "find_versions"} <= set(methods)
    for name in methods:
        signature = inspect.signature(getattr(CheckHttp, name))
        assert f"`http.{name}(" in section, f"CheckHttp.{name} is not documented in docs/plugin_hooks.md"
        for parameter in list(signature.parameters)[1:]:
            assert parameter in section, f"parameter {parameter!r} of CheckHttp.{name} is not documented"


def test_the_http_object_section_names_its_answer_fields_and_errors():
    import dataclasses

    from anitrack_core.check.http import HttpResponse

    section = _http_section()
    for name in [f.name for f in dataclasses.fields(HttpResponse)] + ["ok", "text", "json()"]:
        assert f"| `{name}` |" in section, f"HttpResponse.{name} is not documented"
    for error in ("FetchError", "BlockedAddressError", "RateLimitError", "NotModified"):
        assert f"| `{error}`" in section, f"{error} is not documented"
