"""Events: every change announced on the message bus, never lost, never in the way.

Store functions call :func:`record` inside the transaction of their change;
the event becomes a row of the outbox (``outbox_event``) that commits or rolls
back with the change, and its blinker signal (:mod:`.signals`) is sent after
the commit.  The publisher (:mod:`.publisher`, the only module besides
:mod:`.topology` that imports kombu) relays the outbox to the broker.
Importing this package does not import kombu.  See docs/events.md.
"""

from .messages import SYSTEM_AGENT
from .outbox import backlog, record, record_many
from .signals import SIGNALS, TOPICS, connect_all, signal_for

__all__ = ["SIGNALS", "SYSTEM_AGENT", "TOPICS", "backlog", "connect_all", "record", "record_many", "signal_for"]
