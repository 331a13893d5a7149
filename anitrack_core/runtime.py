"""Putting a process together: settings, then plugins, then the database.

Settings are read in two passes: the core's first (they say which plugins to
load), then, once the plugins have declared theirs, everything again with
unknown keys refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import peewee

from .config import Settings, core_settings, load_settings, read_config_file
from .plugins import Plugins, load_plugins

if TYPE_CHECKING:
    from .identity import IdentityProvider


@dataclass
class Runtime:
    """What a command or the web app works with."""

    settings: Settings
    plugins: Plugins
    db: peewee.Database | None = None
    #: the identity providers people sign in with, by name (``[auth.providers.<name>]``)
    identity_providers: dict[str, IdentityProvider] = field(default_factory=dict)


def load_runtime(environ: Mapping[str, str] | None = None, *, database: bool = True,
                 require_schema: bool = True) -> Runtime:
    """Settings, plugins and (if *database*) the opened database.

    :raises anitrack_core.errors.ConfigError: a setting is bad.
    :raises anitrack_core.errors.StoreError: the database cannot be reached, or
        (with *require_schema*) its schema is behind the code.
    """
    environ = os.environ if environ is None else environ
    file_values, file_path = read_config_file(environ.get("ANITRACK_CONFIG"))
    core = load_settings(core_settings(), environ, file_values=file_values, file_path=file_path, strict=False)
    plugins = load_plugins(autoload=not core.no_plugin_autoload, disabled=core.disable_plugins,
                           trace=core.trace_hooks)
    absent = {name: info.status if info.status == "disabled" else f"broken ({info.error})"
              for name, info in plugins.info.items() if info.status in ("disabled", "broken")}
    settings = load_settings(plugins.settings_spec, environ, file_values=file_values, file_path=file_path,
                             absent_plugins=absent)
    from .identity import configured_providers

    runtime = Runtime(settings, plugins,
                      identity_providers=configured_providers(settings, plugins.identity_providers, environ))
    if database:
        from .db.database import open_database
        from .db.migrate import require_current

        data_dir = settings.data_dir
        if settings.source("database_url") == "default":
            data_dir.mkdir(parents=True, exist_ok=True)
        runtime.db = open_database(settings.database_url)
        if require_schema:
            require_current(runtime.db)
    return runtime
