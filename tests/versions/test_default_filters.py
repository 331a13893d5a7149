"""Backends and ecosystems may give default version and pre-release filters (Go's +incompatible)."""

from anitrack_core import hookimpl
from anitrack_core.backend import Backend
from anitrack_core.listing import SchemeCache
from anitrack_core.resolve import scheme_for


class GoProxy(Backend):
    name = "GoProxy"
    default_pre_release_filter = "-rc"


class GoModules:
    name = "go"
    default_backend = "GoProxy"
    aliases = ["golang"]
    default_version_filter = "+incompatible"


class GoPlugin:
    @hookimpl
    def anitrack_register_backends(self, registry):
        registry.add(GoProxy)

    @hookimpl
    def anitrack_register_ecosystems(self, registry):
        registry.add(GoModules)


RAW = ["v1.0.0", "v2.0.0+incompatible", "v1.1.0-rc1", "v1.1.0"]


def latest(plugins, **fields):
    scheme = scheme_for(plugins, {"backend": "GoProxy", "ecosystem_name": "go", "version_scheme": "Semantic",
                                  "version_prefix": "v", **fields})
    kept = scheme.keep(RAW)
    return scheme.latest(kept), [raw for raw in kept if scheme.is_prerelease(raw)]


def test_the_ecosystems_filter_and_the_backends_pre_release_filter_apply(anitrack_plugins, register_plugin):
    register_plugin(GoPlugin(), "go")
    newest, prereleases = latest(anitrack_plugins)
    assert newest == "v1.1.0"
    assert prereleases == ["v1.1.0-rc1"]


def test_a_projects_own_filter_wins(anitrack_plugins, register_plugin):
    register_plugin(GoPlugin(), "go")
    newest, _ = latest(anitrack_plugins, version_filter="v1.1")
    assert newest == "v2.0.0+incompatible"


def test_the_listing_cache_uses_the_same_defaults(anitrack_plugins, register_plugin):
    register_plugin(GoPlugin(), "go")
    scheme = SchemeCache(anitrack_plugins).for_project(
        {"backend": "GoProxy", "ecosystem_name": "go", "version_scheme": "Semantic", "version_prefix": "v"})
    assert scheme.is_filtered_out("v2.0.0+incompatible")
