"""The throwaway brokers of tests/servers/brokers.py: loopback only, halt/restart, nothing left behind."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from anitrack_core.testing import skip_or_fail
from tests.servers import ServerUnavailable, port_open
from tests.servers.brokers import start_rabbitmq, start_redis


def _listeners_of(pids: set[int]) -> list[str]:
    """The TCP addresses the processes *pids* listen on (from ss)."""
    out = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
    return [line.split()[3] for line in out.splitlines() if any(f"pid={pid}," in line for pid in pids)]


def _group_of(pgid: int) -> set[int]:
    def pgid_of(pid: int) -> int | None:
        try:
            return os.getpgid(pid)
        except OSError:
            return None

    return {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and pgid_of(int(p.name)) == pgid}


@pytest.mark.parametrize("start", [start_redis, start_rabbitmq])
def test_lifecycle(start, tmp_path):
    root = tmp_path / "broker"
    root.mkdir()
    try:
        broker = start(root)
    except ServerUnavailable as exc:
        skip_or_fail(str(exc))
    try:
        port, group = broker.port, broker.executor.process.pid
        assert broker.running and port_open("127.0.0.1", port)
        assert broker.url.startswith(("amqp://", "redis://")) and f":{port}/" in broker.url
        if subprocess.run(["which", "ss"], capture_output=True).returncode == 0:
            listening = _listeners_of(_group_of(group))
            assert listening and all(address.startswith(("127.0.0.1:", "[::1]:")) for address in listening), listening
        broker.halt(kill=True)
        assert not broker.running and not port_open("127.0.0.1", port) and root.exists()
        broker.restart()
        assert broker.running and broker.port == port and port_open("127.0.0.1", port)
        group = broker.executor.process.pid
    finally:
        broker.stop()
    assert not root.exists() and not port_open("127.0.0.1", port)
    deadline = time.monotonic() + 10  # killed with SIGKILL: the last ones may take a moment to be reaped
    while _group_of(group) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_of(group)


def test_missing_binaries_are_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("ANITRACK_REDIS_SERVER", "/nonexistent/redis-server")
    monkeypatch.setenv("ANITRACK_RABBITMQ_SERVER", "/nonexistent/rabbitmq-server")
    with pytest.raises(ServerUnavailable, match="apt-get install -y redis-server"):
        start_redis(tmp_path)
    with pytest.raises(ServerUnavailable, match="apt-get install -y rabbitmq-server"):
        start_rabbitmq(tmp_path)
