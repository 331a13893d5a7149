"""anitrack core: the plugin host, the store and the version rules.

A plugin needs one name from here::

    from anitrack_core import hookimpl

    @hookimpl
    def anitrack_register_backends(registry):
        registry.add(MyBackend)
"""

import importlib.metadata

import pluggy

PROJECT_NAME = "anitrack"
#: the core's distribution on PyPI (plugins depend on it; the name ``anitrack`` there is another project's)
DISTRIBUTION = "anitrack-core"
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


def core_version() -> str | None:
    """The installed version of the core distribution (None when it runs uninstalled from a checkout)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


__all__ = ["DISTRIBUTION", "PROJECT_NAME", "core_version", "hookimpl"]
