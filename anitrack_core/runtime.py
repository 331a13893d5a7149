"""Putting a process together: settings, then plugins, then the database.

Settings are read in two passes: the core's first (they say which plugins to
load), then, once the plugins have declared theirs, everything again with
unknown keys refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
        runtime.db = open_database(settings.database_url, busy_timeout=settings.db_busy_timeout)
        if require_schema:
            require_current(runtime.db)
    return runtime


def worker_count(setting: int, *, fork: bool = False) -> int:
    """The processes a setting such as ``web_workers`` or ``check_processes`` asks for: the setting,
    or one per core when it is 0.  With *fork* (processes made by forking), 1 where the platform cannot fork."""
    if fork and not hasattr(os, "fork"):
        return 1
    return setting if setting > 0 else max(1, os.cpu_count() or 1)


def settings_snapshot(settings: Settings) -> tuple[dict[str, Any], dict[str, str]]:
    """The values and sources of *settings*, picklable: what a worker process gets of its parent's."""
    return dict(settings), {key: settings.source(key) for key in settings}


def worker_runtime(values: Mapping[str, Any], sources: Mapping[str, str]) -> Runtime:
    """In a worker process: the parent's settings (:func:`settings_snapshot`), with the plugins they
    name loaded again; no environment variable or configuration file is read, no database opened."""
    plugins = load_plugins(autoload=not values["no_plugin_autoload"], disabled=values["disable_plugins"],
                           trace=values["trace_hooks"])
    return Runtime(Settings(dict(values), plugins.settings_spec, dict(sources)), plugins)
