"""Throwaway message brokers for the tests and benchmarks: Redis and RabbitMQ from Debian's packages.

The processes are run by the executors of pytest-redis and pytest-rabbitmq
(mirakuru: a process group, waited for until its TCP port answers, every
process it started killed on stop).  :class:`Broker` adds what the event
tests need on top: the kombu URL, and an outage to stage with :meth:`halt`
and :meth:`restart` (same port, same data).  Both listen on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ServerUnavailable
from .ports import free_port, port_open

RABBITMQ_SERVER_ENV = "ANITRACK_RABBITMQ_SERVER"
"""Environment variable naming the ``rabbitmq-server`` script to run (default: Debian's)."""

REDIS_SERVER_ENV = "ANITRACK_REDIS_SERVER"
"""Environment variable naming the ``redis-server`` binary to run (default: on PATH)."""

DEBIAN_RABBITMQ_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"
"""The real start script; ``/usr/sbin/rabbitmq-server`` is a wrapper that switches to user rabbitmq."""

HOST = "127.0.0.1"


@dataclass
class Broker:
    """A running broker: ``url`` for kombu, ``halt()`` / ``restart()`` for an outage, ``stop()`` at the end."""

    executor: Any
    scheme: str
    port: int
    root_dir: Path
    host: str = HOST

    @property
    def url(self) -> str:
        return f"{self.scheme}://guest:guest@{self.host}:{self.port}//" if self.scheme == "amqp" \
            else f"{self.scheme}://{self.host}:{self.port}/0"

    @property
    def running(self) -> bool:
        return bool(self.executor.running())

    def halt(self, *, kill: bool = False) -> None:
        """Stop the broker (SIGTERM, or SIGKILL with *kill*), keeping its port and data for :meth:`restart`."""
        if kill:
            self.executor.kill()
        else:
            self.executor.stop()
        deadline = time.monotonic() + 30  # the group's last process may close its sockets a moment later
        while port_open(self.host, self.port) and time.monotonic() < deadline:
            time.sleep(0.05)

    def restart(self) -> None:
        """Start the halted broker again on the same port with the same data; waits until it answers."""
        self.halt()
        self.executor.start()

    def stop(self) -> None:
        """Stop the broker and remove its directory."""
        try:
            self.halt(kill=True)
        finally:
            shutil.rmtree(self.root_dir, ignore_errors=True)


def _executable(path: str | None, what: str, variable: str, package: str) -> str:
    if path and os.access(path, os.X_OK) and Path(path).is_file():
        return path
    raise ServerUnavailable(f"{what} not found ({path or 'not on PATH'}); install Debian package '{package}' "
                            f"(apt-get install -y {package}), or set {variable} to it")


def start_redis(root_dir: Path) -> Broker:
    """Start a Redis server (no persistence) with its files in *root_dir*."""
    from pytest_redis.executor import RedisExecutor

    binary = _executable(os.environ.get(REDIS_SERVER_ENV) or shutil.which("redis-server"), "redis-server",
                         REDIS_SERVER_ENV, "redis-server")
    port = free_port(HOST)
    executor = RedisExecutor(binary, databases=8, redis_timeout=30, loglevel="warning", host=HOST, port=port,
                             startup_timeout=30, datadir=root_dir)
    executor.start()
    return Broker(executor, "redis", port, root_dir)


def start_rabbitmq(root_dir: Path) -> Broker:
    """Start a RabbitMQ node with its database, logs and plugin list in *root_dir*."""
    from pytest_rabbitmq.factories.executor import RabbitMqExecutor

    script = _executable(os.environ.get(RABBITMQ_SERVER_ENV) or DEBIAN_RABBITMQ_SERVER, "rabbitmq-server",
                         RABBITMQ_SERVER_ENV, "rabbitmq-server")
    port = free_port(HOST)
    executor = RabbitMqExecutor(script, HOST, port, free_port(HOST), rabbit_ctl=str(Path(script).with_name(
        "rabbitmqctl")), logpath=root_dir / "log", path=root_dir, plugin_path=root_dir)
    # the executor takes no extra environment: listen on loopback only (AMQP and Erlang distribution)
    executor._envvars.update({
        "RABBITMQ_NODE_IP_ADDRESS": HOST,
        "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        "ERL_EPMD_ADDRESS": HOST,
    })
    executor.start()
    return Broker(executor, "amqp", port, root_dir)
