"""The base class of ecosystems: language package indexes such as PyPI or npm."""

from __future__ import annotations

from typing import ClassVar


class Ecosystem:
    """Subclass this and set the class attributes.

    A project whose backend is an ecosystem's ``default_backend`` belongs to
    that ecosystem: its ``ecosystem_name`` is the ecosystem's ``name`` and its
    name is unique within it.
    """

    #: user-facing name, stored in ``project.ecosystem_name`` and used in URLs ("pypi")
    name: ClassVar[str]
    #: the backend whose projects belong to this ecosystem ("PyPI")
    default_backend: ClassVar[str]
    #: scheme for projects that choose none (None: the backend's default, then RPM)
    default_version_scheme: ClassVar[str | None] = None
    #: other names accepted in lookups, lower case ("cargo" for crates.io)
    aliases: ClassVar[list[str]] = []
    #: ``;``-separated version filter for projects that set none ("+incompatible" for Go modules);
    #: wins over the backend's
    default_version_filter: ClassVar[str | None] = None
    #: ``;``-separated pre-release filter for projects that set none; wins over the backend's
    default_pre_release_filter: ClassVar[str | None] = None
