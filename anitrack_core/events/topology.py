"""Where events go on the broker: one topic exchange, one routing key per event.

The routing key of an event is ``<topic_prefix>.<event>`` (``org.anitrack.project.add``);
the exchange is ``events_exchange``, a durable topic exchange (default ``amq.topic``,
which every AMQP broker has).

The ``amq.`` pitfall: kombu's ``Exchange.declare()`` silently skips names
starting with ``amq.`` (AMQP brokers pre-declare them).  On kombu's virtual
transports (``redis://``, ``memory://``) nothing pre-declares them, and an
exchange that was never declared in a process is routed there as a *direct*
exchange: a ``#`` binding then receives nothing, with no error.  So on a
virtual transport both the publisher and every consumer declare the exchange
themselves, by name, with :func:`declare_exchange`.
"""

from __future__ import annotations

from typing import Any

from kombu import Connection, Exchange, Queue
from kombu.transport.virtual import Channel as VirtualChannel

RESERVED_PREFIX = "amq."


def routing_key(prefix: str, topic: str) -> str:
    """``<prefix>.<topic>``: ``routing_key("org.anitrack", "project.add") == "org.anitrack.project.add"``."""
    return f"{prefix.rstrip('.')}.{topic}"


def exchange(name: str) -> Exchange:
    return Exchange(name, type="topic", durable=True, auto_delete=False)


def is_virtual(channel: Any) -> bool:
    """True on kombu's virtual transports (Redis, memory...), False on a real AMQP broker."""
    return isinstance(channel, VirtualChannel)


def declare_exchange(channel: Any, name: str) -> None:
    """Make sure the topic exchange *name* exists, and is known as a topic exchange to this process.

    On AMQP an ``amq.*`` exchange is the broker's own and is left alone; any
    other name is declared (durable topic).  On a virtual transport every
    name is declared explicitly, ``amq.*`` included (see the module docstring).
    """
    if is_virtual(channel):
        channel.exchange_declare(exchange=name, type="topic", durable=True, auto_delete=False)
    elif not name.startswith(RESERVED_PREFIX):
        exchange(name)(channel).declare()


def events_queue(name: str, exchange_name: str, keys: list[str], *, durable: bool = True) -> Queue:
    """A queue bound to *exchange_name* with each routing key pattern in *keys* (``org.anitrack.#``)."""
    from kombu import binding

    ex = exchange(exchange_name)
    return Queue(name, bindings=[binding(ex, routing_key=key) for key in keys], durable=durable,
                 auto_delete=not durable)


def bind_queue(connection: Connection, name: str, exchange_name: str, keys: list[str], *,
               durable: bool = True) -> Queue:
    """Declare the exchange (mind ``amq.``) and a queue bound to it; returns the queue, bound to a channel.

    What a kombu consumer does before consuming anitrack's events (docs/events.md).
    """
    channel = connection.default_channel
    declare_exchange(channel, exchange_name)
    queue = events_queue(name, exchange_name, keys, durable=durable)(channel)
    queue.declare()
    return queue
