"""Registries of backends, ecosystems and version schemes.

Plugins receive a registry in their ``anitrack_register_*`` hook and call
:meth:`Registry.add` with a class.  The registry checks the class once, refuses
a name that is already taken (names compare case-insensitively) and remembers
which plugin added it, so ``anitrack plugins`` can say where each came from.
Lookups are case-insensitive and hand back the class, whose ``name`` attribute
is the canonical spelling.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from .errors import DuplicateNameError, PluginError, UnknownNameError, UnknownSchemeError

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Named classes of one kind, looked up case-insensitively.

    :param kind: what the registry holds, as users call it ("backend").
    :param required: class attributes every registered class must define.
    """

    unknown_error: type[UnknownNameError] = UnknownNameError

    def __init__(self, kind: str, required: tuple[str, ...] = ("name",)) -> None:
        self.kind = kind
        self.required = required
        self._by_key: dict[str, T] = {}
        self._source: dict[str, str] = {}
        #: the plugin on whose behalf :meth:`add` is called (set by the loader)
        self.current_plugin: str | None = None

    def add(self, cls: T) -> T:
        """Register *cls*; returns it, so it can be used as a class decorator.

        :raises PluginError: the class lacks a required attribute.
        :raises DuplicateNameError: the name (in any letter case) is taken.
        """
        missing = [attr for attr in self.required if not hasattr(cls, attr)]
        if missing:
            raise PluginError(
                f"{self.kind} class {cls.__qualname__} lacks required attribute(s): "
                + ", ".join(missing)
            )
        name = cls.name
        if not isinstance(name, str) or not name.strip():
            raise PluginError(f"{self.kind} class {cls.__qualname__} has an empty or non-string name")
        key = name.casefold()
        if key in self._by_key:
            owner = self._source.get(key) or "an earlier plugin"
            raise DuplicateNameError(
                f"{self.kind} name {name!r} is already registered by {owner} "
                f"(as {self._by_key[key].name!r}); names must be unique, ignoring letter case"
            )
        self._by_key[key] = cls
        self._source[key] = self.current_plugin or "(unknown plugin)"
        return cls

    def remove(self, name: str) -> None:
        """Forget the class registered under *name* (any letter case)."""
        key = name.casefold()
        self._by_key.pop(key, None)
        self._source.pop(key, None)

    def get(self, name: str) -> T:
        """The class registered under *name*, compared case-insensitively.

        :raises UnknownNameError: nothing is registered under that name.
        """
        try:
            return self._by_key[name.casefold()]
        except (KeyError, AttributeError):
            known = ", ".join(sorted(self.names(), key=str.casefold)) or "none"
            raise self.unknown_error(f"unknown {self.kind} {name!r} (known: {known})") from None

    def find(self, name: str | None) -> T | None:
        """Like :meth:`get` but returns None for an unknown or empty name."""
        if not name:
            return None
        return self._by_key.get(name.casefold())

    def canonical_name(self, name: str) -> str:
        """The registered spelling of *name* ("pypi" -> "PyPI")."""
        return self.get(name).name

    def plugin_of(self, name: str) -> str:
        """The plugin that registered *name*."""
        return self._source[self.get(name).name.casefold()]

    def names(self) -> list[str]:
        """Canonical names, in registration order."""
        return [cls.name for cls in self._by_key.values()]

    def items(self) -> list[tuple[str, T]]:
        return [(cls.name, cls) for cls in self._by_key.values()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.casefold() in self._by_key

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._by_key.values()))

    def __len__(self) -> int:
        return len(self._by_key)


class BackendRegistry(Registry[type]):
    """Backends: classes derived from :class:`anitrack_core.backend.Backend`."""

    def __init__(self) -> None:
        super().__init__("backend", ("name", "get_versions"))


class EcosystemRegistry(Registry[type]):
    """Ecosystems: classes derived from :class:`anitrack_core.ecosystem.Ecosystem`."""

    def __init__(self) -> None:
        super().__init__("ecosystem", ("name", "default_backend"))
        #: casefolded alias -> the first ecosystem registered with it
        self._by_alias: dict[str, type] = {}

    def add(self, cls: type) -> type:
        super().add(cls)
        for alias in getattr(cls, "aliases", ()):
            self._by_alias.setdefault(alias.casefold(), cls)
        return cls

    def remove(self, name: str) -> None:
        super().remove(name)
        self._by_alias = {}
        for ecosystem in self:
            for alias in getattr(ecosystem, "aliases", ()):
                self._by_alias.setdefault(alias.casefold(), ecosystem)

    def for_backend(self, backend_name: str) -> type | None:
        """The first ecosystem whose default backend is *backend_name*, if any."""
        key = backend_name.casefold()
        for ecosystem in self:
            if ecosystem.default_backend.casefold() == key:
                return ecosystem
        return None

    def get(self, name: str) -> type:
        """An ecosystem by its name or one of its aliases (case-insensitive).

        :raises UnknownNameError: neither a name nor an alias.
        """
        found = self.find(name)
        return found if found is not None else super().get(name)

    def find(self, name: str | None) -> type | None:
        """An ecosystem by its name or one of its aliases (case-insensitive)."""
        found = super().find(name)
        if found is not None or not name:
            return found
        return self._by_alias.get(name.casefold())


class SchemeRegistry(Registry[type]):
    """Version schemes: classes derived from :class:`anitrack_core.versions.VersionScheme`."""

    unknown_error = UnknownSchemeError

    def __init__(self) -> None:
        super().__init__("version scheme", ("name", "sort_key"))


class IdentityProviderRegistry(Registry[type]):
    """Identity provider kinds: classes derived from :class:`anitrack_core.identity.IdentityProvider`.

    A kind's ``name`` is the ``kind`` value of an ``[auth.providers.<name>]`` table.
    """

    def __init__(self) -> None:
        super().__init__("identity provider kind", ("name", "protocol", "identity"))
