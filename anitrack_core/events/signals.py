"""The events of anitrack: one blinker signal per topic, in one namespace.

Core code never sends these itself: :func:`anitrack_core.events.record`
writes the event to the outbox in the transaction of the change, and the
signal is sent once that transaction has committed (never for a rolled-back
change).  Receivers get ``(sender, event_id=..., topic=..., body=...,
project_id=...)``; ``body`` is the message body exactly as it goes on the wire.
The broker publisher is only one subscriber among others: it listens to know
there is work, and reads what to send from the outbox.

Receivers are called in the thread that committed, right after the commit:
they must be quick, and a receiver that raises is logged and skipped (it
cannot undo a committed change, nor stop the other receivers).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import blinker

log = logging.getLogger(__name__)

#: the sender of every event signal
SENDER = "anitrack"

events = blinker.Namespace()

#: topic suffix -> what it announces (the topics of Anitya's messages, anitya-schema's names without "anitya.")
TOPIC_DOCS: dict[str, str] = {
    "project.add": "a project was created",
    "project.edit": "fields of a project changed",
    "project.remove": "a project was deleted",
    "project.flag": "a user flagged a project",
    "project.flag.set": "a flag was opened or closed",
    "project.map.new": "a distribution package was mapped to a project",
    "project.map.update": "a mapping changed",
    "project.map.remove": "a mapping was deleted",
    "project.version.update": "a check found new versions (deprecated form: the new latest version)",
    "project.version.update.v2": "a check found new versions (every new version)",
    "project.version.remove": "a version was deleted (deprecated form)",
    "project.version.remove.v2": "versions were deleted",
    "distro.add": "a distribution was added",
    "distro.edit": "a distribution was renamed",
    "distro.remove": "a distribution was deleted",
}
TOPICS: tuple[str, ...] = tuple(TOPIC_DOCS)

SIGNALS: dict[str, blinker.NamedSignal] = {topic: events.signal(topic, doc=doc) for topic, doc in TOPIC_DOCS.items()}

project_add = SIGNALS["project.add"]
project_edit = SIGNALS["project.edit"]
project_remove = SIGNALS["project.remove"]
project_flag = SIGNALS["project.flag"]
project_flag_set = SIGNALS["project.flag.set"]
project_map_new = SIGNALS["project.map.new"]
project_map_update = SIGNALS["project.map.update"]
project_map_remove = SIGNALS["project.map.remove"]
project_version_update = SIGNALS["project.version.update"]
project_version_update_v2 = SIGNALS["project.version.update.v2"]
project_version_remove = SIGNALS["project.version.remove"]
project_version_remove_v2 = SIGNALS["project.version.remove.v2"]
distro_add = SIGNALS["distro.add"]
distro_edit = SIGNALS["distro.edit"]
distro_remove = SIGNALS["distro.remove"]


def listened() -> bool:
    """Whether any receiver is connected to any event signal."""
    return any(signal.receivers for signal in SIGNALS.values())


def signal_for(topic: str) -> blinker.NamedSignal:
    """The signal of *topic* (``project.add``...); ValueError for an unknown topic."""
    try:
        return SIGNALS[topic]
    except KeyError:
        raise ValueError(f"unknown event topic {topic!r}; known: {', '.join(TOPICS)}") from None


def send(topic: str, **payload: Any) -> None:
    """Call every receiver of *topic*'s signal; one that raises is logged and the others still run."""
    signal = signal_for(topic)
    for receiver in signal.receivers_for(SENDER):
        try:
            receiver(SENDER, topic=topic, **payload)
        except Exception:
            log.exception("a receiver of event %s failed", topic)


def connect_all(receiver: Callable[..., Any]) -> Callable[[], None]:
    """Connect *receiver* (strongly) to every event signal; returns the function that disconnects it."""
    for signal in SIGNALS.values():
        signal.connect(receiver, weak=False)

    def disconnect() -> None:
        for signal in SIGNALS.values():
            signal.disconnect(receiver)

    return disconnect
