"""Distributions."""

from __future__ import annotations

import peewee

from .. import events
from ..errors import AnitrackError
from ..events import messages
from .models import Distro


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
