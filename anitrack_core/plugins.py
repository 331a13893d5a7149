"""Building the plugin manager and loading plugins, one at a time.

:func:`load_plugins` is the factory: every caller (CLI, web app, tests) gets
its own :class:`Plugins`, there is no module-level manager.  Entry points of
the group ``anitrack`` are loaded one by one; a plugin that fails to import,
implements an unknown hook, raises in a registration hook or registers a name
that is already taken is reported (``anitrack plugins``, and a log warning)
and skipped: it never stops the others from loading.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from . import PROJECT_NAME, hookspecs
from .config import SettingsSpec, core_settings
from .registry import BackendRegistry, EcosystemRegistry, IdentityProviderRegistry, Registry, SchemeRegistry

log = logging.getLogger(__name__)

#: the core's own plugins, registered through the same hooks as anyone's
BUILTIN_PLUGINS = ("anitrack_core.builtin.schemes", "anitrack_core.builtin.identity")

_REGISTER_HOOKS = (
    ("anitrack_register_backends", "backends"),
    ("anitrack_register_ecosystems", "ecosystems"),
    ("anitrack_register_version_schemes", "schemes"),
    ("anitrack_register_identity_providers", "identity_providers"),
)


@dataclass
class PluginInfo:
    """What ``anitrack plugins`` reports about one plugin."""

    name: str
    distribution: str | None
    version: str | None
    status: str  # "builtin", "loaded", "broken" or "disabled"
    error: str | None = None
    backends: list[str] = field(default_factory=list)
    ecosystems: list[str] = field(default_factory=list)
    schemes: list[str] = field(default_factory=list)
    identity_providers: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Plugins:
    """The plugin manager of one process, with what the plugins registered."""

    pm: pluggy.PluginManager
    info: dict[str, PluginInfo] = field(default_factory=dict)
    backends: BackendRegistry = field(default_factory=BackendRegistry)
    ecosystems: EcosystemRegistry = field(default_factory=EcosystemRegistry)
    schemes: SchemeRegistry = field(default_factory=SchemeRegistry)
    identity_providers: IdentityProviderRegistry = field(default_factory=IdentityProviderRegistry)
    settings_spec: SettingsSpec = field(default_factory=core_settings)

    def register(self, plugin: object, name: str, *, distribution: str | None = None,
                 version: str | None = None, status: str = "loaded") -> PluginInfo:
        """Register *plugin* and run its registration hooks, isolating any failure."""
        info = PluginInfo(name, distribution, version, status)
        self.info[name] = info
        try:
            self.pm.register(plugin, name=name)
        except Exception as exc:  # pluggy.PluginValidationError, ValueError (name taken)
            return self._mark_broken(info, f"cannot be registered: {exc}")
        unknown = [c.name for c in self.pm.get_hookcallers(plugin) or () if not c.has_spec()]
        if unknown:
            return self._mark_broken(
                info, f"implements unknown hook(s) {', '.join(sorted(unknown))} "
                      "(written for another version of anitrack?)")
        try:
            self._run_registration_hooks(plugin, info)
        except Exception as exc:
            return self._mark_broken(info, f"{type(exc).__name__}: {exc}")
        return info

    def unregister(self, name: str) -> None:
        """Remove a plugin and everything it registered."""
        info = self.info.pop(name, None)
        if info is not None:
            self._forget_registrations(info)
        if self.pm.has_plugin(name):
            self.pm.unregister(name=name)

    def call_each(self, hook_name: str, **kwargs: Any) -> None:
        """Call every implementation of an observation hook; one failing does not stop the rest."""
        for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
            try:
                impl.function(*[kwargs[arg] for arg in impl.argnames])
            except Exception:
                log.exception("plugin %s failed in %s", impl.plugin_name, hook_name)

    def _run_registration_hooks(self, plugin: object, info: PluginInfo) -> None:
        for hook_name, attr in _REGISTER_HOOKS:
            registry: Registry[Any] = getattr(self, attr)
            for impl in self._impls_of(plugin, hook_name):
                before = set(registry.names())
                registry.current_plugin = info.name
                try:
                    impl.function(*[{"registry": registry}[arg] for arg in impl.argnames])
                finally:
                    registry.current_plugin = None
                    getattr(info, attr).extend(n for n in registry.names() if n not in before)
        for impl in self._impls_of(plugin, "anitrack_declare_settings"):
            before = {s.key for s in self.settings_spec}
            self.settings_spec.current_plugin = info.name
            try:
                impl.function(*[{"settings": self.settings_spec}[arg] for arg in impl.argnames])
            finally:
                self.settings_spec.current_plugin = None
                info.settings.extend(s.key for s in self.settings_spec if s.key not in before)

    def _impls_of(self, plugin: object, hook_name: str) -> list[Any]:
        caller = getattr(self.pm.hook, hook_name)
        return [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]

    def _forget_registrations(self, info: PluginInfo) -> None:
        for _, attr in _REGISTER_HOOKS:
            registry = getattr(self, attr)
            for name in getattr(info, attr):
                registry.remove(name)
            getattr(info, attr).clear()
        self.settings_spec.remove_owner(info.name)
        info.settings.clear()

    def _mark_broken(self, info: PluginInfo, error: str) -> PluginInfo:
        self._forget_registrations(info)
        if self.pm.has_plugin(info.name):
            self.pm.unregister(name=info.name)
        info.status, info.error = "broken", error
        log.warning("plugin %s (%s) not loaded: %s", info.name, info.distribution or "?", error)
        return info


def _log_before(hook_name: str, impls: list[Any], kwargs: dict[str, Any]) -> None:
    log.info("hook %s -> %s %r", hook_name, [i.plugin_name for i in impls], kwargs)


def _log_after(outcome: Any, hook_name: str, impls: list[Any], kwargs: dict[str, Any]) -> None:
    log.info("hook %s returned %r", hook_name, outcome.get_result() if outcome.exception is None else outcome.exception)


def load_plugins(*, autoload: bool = True, disabled: Iterable[str] = (), trace: bool = False) -> Plugins:
    """Build a plugin manager with the built-ins and, if *autoload*, the installed plugins.

    :param disabled: entry-point names not to load (compared case-insensitively).
    :param trace: log every hook call (``ANITRACK_TRACE_HOOKS=1``).
    """
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    plugins = Plugins(pm)
    core_version = _version_of("anitrack")
    for dotted in BUILTIN_PLUGINS:
        plugins.register(importlib.import_module(dotted), dotted, distribution="anitrack",
                         version=core_version, status="builtin")
    if autoload:
        _load_entry_points(plugins, {name.casefold() for name in disabled})
    if trace:
        pm.add_hookcall_monitoring(_log_before, _log_after)
    return plugins


def _load_entry_points(plugins: Plugins, disabled: set[str]) -> None:
    for ep in sorted(importlib.metadata.entry_points(group=PROJECT_NAME), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        dist_name, dist_version = (dist.name, dist.version) if dist is not None else (None, None)
        if ep.name.casefold() in disabled:
            plugins.info[ep.name] = PluginInfo(ep.name, dist_name, dist_version, "disabled")
            continue
        if ep.name in plugins.info:
            taken = plugins.info[ep.name]
            key = f"{ep.name} ({dist_name})"
            plugins.info[key] = PluginInfo(
                key, dist_name, dist_version, "broken",
                f"entry-point name {ep.name!r} is already used by {taken.distribution}; "
                "plugin names must be unique")
            log.warning("plugin %s not loaded: %s", key, plugins.info[key].error)
            continue
        try:
            module = ep.load()
        except BaseException as exc:  # a plugin's import may raise anything, even SystemExit
            if isinstance(exc, KeyboardInterrupt):
                raise
            info = PluginInfo(ep.name, dist_name, dist_version, "broken")
            plugins.info[ep.name] = info
            plugins._mark_broken(info, f"import failed: {type(exc).__name__}: {exc}")
            continue
        plugins.register(module, ep.name, distribution=dist_name, version=dist_version)


def _version_of(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
