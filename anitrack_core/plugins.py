"""Building the plugin manager and loading plugins, one at a time.

:func:`load_plugins` is the factory: every caller (CLI, web app, tests) gets
its own :class:`Plugins`, there is no module-level manager.  Entry points of
the group ``anitrack`` are loaded one by one; a plugin that fails to import,
implements an unknown hook, raises in a registration hook or registers a name
that is already taken is reported (``anitrack plugins``, and a log warning)
and skipped: it never stops the others from loading.

Hooks are called through pluggy (``pm.hook``), so its rules hold exactly:
``tryfirst``/``trylast`` order, ``wrapper=True`` implementations, and the
tracing of ``ANITRACK_TRACE_HOOKS``.  A plugin's registration hooks run when
it is registered, through a caller restricted to that plugin, so a failure
marks that plugin broken and no other.  An observation hook's implementation
is guarded when it is registered: its exception is logged and the other
plugins still observe.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from . import DISTRIBUTION, PROJECT_NAME, core_version, hookspecs
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
#: hooks called while anitrack works, whose failures are logged, never raised
OBSERVATION_HOOKS = ("anitrack_project_checked",)


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
            hash(plugin)
        except TypeError:
            return self._mark_broken(info, "cannot be registered: a plugin must be a module, a class or a "
                                           "hashable object (pluggy calls hooks per plugin)")
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
        self._guard_observers(plugin, name)
        return info

    def unregister(self, name: str) -> None:
        """Remove a plugin and everything it registered."""
        info = self.info.pop(name, None)
        if info is not None:
            self._forget_registrations(info)
        if self.pm.has_plugin(name):
            self.pm.unregister(name=name)

    def call_each(self, hook_name: str, **kwargs: Any) -> None:
        """Call an observation hook through pluggy; a failing plugin is logged and the others still run."""
        try:
            getattr(self.pm.hook, hook_name)(**kwargs)
        except Exception:  # only a wrapper's own failure gets here: implementations are guarded
            log.exception("a wrapper of %s failed", hook_name)

    def _run_registration_hooks(self, plugin: object, info: PluginInfo) -> None:
        for hook_name, attr in _REGISTER_HOOKS:
            registry: Registry[Any] = getattr(self, attr)
            before = set(registry.names())
            registry.current_plugin = info.name
            try:
                self._hook_of(plugin, hook_name)(registry=registry)
            finally:
                registry.current_plugin = None
                getattr(info, attr).extend(n for n in registry.names() if n not in before)
        before = {s.key for s in self.settings_spec}
        self.settings_spec.current_plugin = info.name
        try:
            self._hook_of(plugin, "anitrack_declare_settings")(settings=self.settings_spec)
        finally:
            self.settings_spec.current_plugin = None
            info.settings.extend(s.key for s in self.settings_spec if s.key not in before)

    def _hook_of(self, plugin: object, hook_name: str) -> Callable[..., Any]:
        """The hook *hook_name* of pluggy restricted to *plugin*'s implementations."""
        others = [p for p in self.pm.get_plugins() if p is not plugin]
        return self.pm.subset_hook_caller(hook_name, remove_plugins=others)

    def _guard_observers(self, plugin: object, name: str) -> None:
        for hook_name in OBSERVATION_HOOKS:
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                if impl.plugin is plugin and not (impl.wrapper or impl.hookwrapper):
                    impl.function = _guarded(impl.function, name, hook_name)

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


def _guarded(function: Callable[..., Any], plugin_name: str, hook_name: str) -> Callable[..., Any]:
    """*function* with its exceptions logged instead of raised (pluggy passes arguments by position)."""

    @functools.wraps(function)
    def observe(*args: Any) -> Any:
        try:
            return function(*args)
        except Exception:
            log.exception("plugin %s failed in %s", plugin_name, hook_name)
            return None

    return observe


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
    if trace:
        pm.add_hookcall_monitoring(_log_before, _log_after)
    plugins = Plugins(pm)
    version = core_version()
    for dotted in BUILTIN_PLUGINS:
        plugins.register(importlib.import_module(dotted), dotted, distribution=DISTRIBUTION,
                         version=version, status="builtin")
    if autoload:
        _load_entry_points(plugins, {name.casefold() for name in disabled})
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
