"""anitrack core: the plugin host, the store and the version rules.

A plugin needs one name from here::

    from anitrack_core import hookimpl

    @hookimpl
    def anitrack_register_backends(registry):
        registry.add(MyBackend)
"""

import pluggy

PROJECT_NAME = "anitrack"
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["PROJECT_NAME", "hookimpl"]
