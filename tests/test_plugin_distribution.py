"""End to end: a plugin published as its own distribution, installed, listed, removed.

Builds real wheels from a temporary directory with ``python -m build``,
installs them with pip into a directory of the test that the fresh
``anitrack plugins --json`` processes have on their path (``PYTHONPATH``: an
installed distribution as any other, but not seen by the tests running beside
this one under xdist), then removes them.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

GOOD = "anitrack-backend-throwaway"
BROKEN = "anitrack-backend-brokenimport"


def write_distribution(root, dist_name, module, entry_name, code):
    root.mkdir()
    (root / "pyproject.toml").write_text(textwrap.dedent(f"""
        [build-system]
        requires = ["setuptools>=68"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{dist_name}"
        version = "0.0.1"
        dependencies = ["anitrack-core"]

        [project.entry-points."anitrack"]
        {entry_name} = "{module}"

        [tool.setuptools]
        py-modules = ["{module}"]
    """))
    (root / f"{module}.py").write_text(textwrap.dedent(code))


def run(*argv, env=None):
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, timeout=300)


def build_and_install(src, wheels, site):
    result = run("-m", "build", "--wheel", "--no-isolation", "--outdir", str(wheels), str(src))
    assert result.returncode == 0, result.stdout + result.stderr
    wheel = next(wheels.glob(src.name.replace("-", "_") + "-*.whl"))
    result = run("-m", "pip", "install", "--no-deps", "--no-index", "--quiet", "--target", str(site), str(wheel))
    assert result.returncode == 0, result.stderr


def plugins_report(env):
    result = run("-m", "anitrack_core.cli", "plugins", "--json", env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_install_list_disable_uninstall(tmp_path, anitrack_env):
    site = tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    write_distribution(tmp_path / GOOD, GOOD, "anitrack_backend_throwaway", "throwaway", """
        from anitrack_core import hookimpl
        from anitrack_core.backend import Backend

        class ThrowawayBackend(Backend):
            name = "Throwaway"
            examples = ["https://example.org/throwaway"]

            def get_versions(self, project, http):
                return []

        class ThrowawayEcosystem:
            name = "throwaway-index"
            default_backend = "Throwaway"

        @hookimpl
        def anitrack_register_backends(registry):
            registry.add(ThrowawayBackend)

        @hookimpl
        def anitrack_register_ecosystems(registry):
            registry.add(ThrowawayEcosystem)
    """)
    write_distribution(tmp_path / BROKEN, BROKEN, "anitrack_backend_brokenimport", "brokenimport", """
        raise ImportError("this plugin is broken on purpose")
    """)
    wheels = tmp_path / "wheels"
    try:
        build_and_install(tmp_path / GOOD, wheels, site)
        build_and_install(tmp_path / BROKEN, wheels, site)

        report = plugins_report(env)
        plugins = {row["name"]: row for row in report["plugins"]}
        assert plugins["throwaway"]["status"] == "loaded"
        assert plugins["throwaway"]["distribution"] == GOOD
        assert plugins["throwaway"]["version"] == "0.0.1"
        assert plugins["throwaway"]["backends"] == ["Throwaway"]
        backends = {row["name"]: row for row in report["backends"]}
        assert backends["Throwaway"]["distribution"] == GOOD
        assert "throwaway-index" in {row["name"] for row in report["ecosystems"]}
        assert plugins["brokenimport"]["status"] == "broken"
        assert "this plugin is broken on purpose" in plugins["brokenimport"]["error"]
        assert {row["name"] for row in report["schemes"]} >= {"RPM", "Semantic"}, "the rest still loads"

        disabled = plugins_report({**env, "ANITRACK_DISABLE_PLUGINS": "THROWAWAY"})
        assert {row["name"]: row for row in disabled["plugins"]}["throwaway"]["status"] == "disabled"
        assert "Throwaway" not in {row["name"] for row in disabled["backends"]}

        no_autoload = plugins_report({**env, "ANITRACK_NO_PLUGIN_AUTOLOAD": "1"})
        assert "throwaway" not in {row["name"] for row in no_autoload["plugins"]}
    finally:
        shutil.rmtree(site, ignore_errors=True)  # what an uninstall removes: the modules and their dist-info

    report = plugins_report(env)
    names = {row["name"] for row in report["plugins"]}
    assert "throwaway" not in names and "brokenimport" not in names
    assert "Throwaway" not in {row["name"] for row in report["backends"]}
