"""Reading what anitrack put on a real broker, the way its consumers do."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import pika


def pika_channel(amqp_url: str) -> tuple[Any, Any]:
    """A blocking pika connection and channel to the broker of *amqp_url* (pika is fedora-messaging's client)."""
    parts = urlsplit(amqp_url)
    connection = pika.BlockingConnection(pika.ConnectionParameters(
        host=parts.hostname, port=parts.port, credentials=pika.PlainCredentials(parts.username, parts.password),
        connection_attempts=3, retry_delay=0.5))
    return connection, connection.channel()


def bound_queue(channel: Any, name: str, exchange: str, keys: list[str]) -> None:
    """A durable queue bound to *exchange* with *keys*, empty (what a fedora-messaging consumer declares)."""
    channel.queue_declare(name, durable=True)
    for key in keys:
        channel.queue_bind(name, exchange, routing_key=key)
    channel.queue_purge(name)


def drain(channel: Any, queue: str, *, expect: int | None = None,
          timeout: float = 15.0) -> list[tuple[Any, Any, bytes]]:
    """Every (method, properties, body) waiting in *queue*, acked; waits up to *timeout* for *expect* of them."""
    received = []
    deadline = time.monotonic() + timeout
    while True:
        method, properties, body = channel.basic_get(queue, auto_ack=True)
        if method is not None:
            received.append((method, properties, body))
            continue
        if expect is None or len(received) >= expect or time.monotonic() > deadline:
            return received
        time.sleep(0.1)


def fedora_messages(deliveries: list[tuple[Any, Any, bytes]]) -> list[Any]:
    """The deliveries as fedora-messaging's consumer turns them into messages (class chosen and validated)."""
    from fedora_messaging.message import get_message

    return [get_message(method.routing_key, properties, body) for method, properties, body in deliveries]
