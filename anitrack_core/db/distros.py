"""Distributions."""

from __future__ import annotations

import peewee

from .. import events
from ..errors import AlreadyExistsError, AnitrackError, FieldError
from ..events import messages
from .models import Distro, Package


def add_distro(name: str, *, agent: str | None = None) -> tuple[Distro, bool]:
    """The distribution *name*, created if needed; returns (distro, created).

    A creation is announced as ``distro.add`` by *agent*.

    Names compare case-insensitively: adding "fedora" when "Fedora" exists
    returns the existing one.
    """
    name = name.strip()
    if not name or len(name) > 200:
        raise AnitrackError("a distribution name must be 1 to 200 characters")
    existing = Distro.get_or_none(Distro.name_key == name.casefold())
    if existing is not None:
        return existing, False
    try:
        with Distro._meta.database.atomic():
            distro = Distro.create(name=name, name_key=name.casefold())
            events.record("distro.add", messages.distro_add(distro.name, agent or events.SYSTEM_AGENT))
            return distro, True
    except peewee.IntegrityError:  # created concurrently
        return Distro.get(Distro.name_key == name.casefold()), False


def find_distro(name: str) -> Distro | None:
    return Distro.get_or_none(Distro.name_key == name.strip().casefold())


def rename_distro(distro: Distro, new_name: str, *, agent: str | None = None) -> bool:
    """Rename *distro*; False (nothing announced) when the name is the same.

    Announced as ``distro.edit`` (``{agent, old, new}``) by *agent*.  A change
    of case only is a rename.

    :raises FieldError: the name is empty or too long.
    :raises AlreadyExistsError: another distribution has that name (ignoring case).
    """
    new_name = (new_name or "").strip()
    if not new_name or len(new_name) > 200:
        raise FieldError("name", "A distribution name must be 1 to 200 characters.")
    old = distro.name
    if new_name == old:
        return False
    other = Distro.get_or_none((Distro.name_key == new_name.casefold()) & (Distro.id != distro.id))
    if other is not None:
        raise AlreadyExistsError(f"a distribution named {other.name!r} already exists")
    try:
        with Distro._meta.database.atomic():
            Distro.update(name=new_name, name_key=new_name.casefold()).where(Distro.id == distro.id).execute()
            events.record("distro.edit", messages.distro_edit(old, new_name, agent or events.SYSTEM_AGENT))
    except peewee.IntegrityError:  # renamed concurrently
        raise AlreadyExistsError(f"a distribution named {new_name!r} already exists") from None
    distro.name, distro.name_key = new_name, new_name.casefold()
    return True


def delete_distro(distro: Distro, *, agent: str | None = None) -> int:
    """Delete *distro* and its mappings; returns how many mappings went with it.

    Announced as ``distro.remove`` by *agent* (one event: the mappings'
    removal is part of it, as in Anitya).
    """
    with Distro._meta.database.atomic():
        removed = Package.delete().where(Package.distro == distro.id).execute()
        Distro.delete().where(Distro.id == distro.id).execute()
        events.record("distro.remove", messages.distro_remove(distro.name, agent or events.SYSTEM_AGENT))
    return removed
