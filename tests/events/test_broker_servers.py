"""The throwaway brokers of anitrack_core.testing_servers: loopback only, halt/restart, nothing left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anitrack_core.testing import skip_or_fail
from anitrack_core.testing_servers import RabbitMQServer, RedisServer, ServerUnavailable, _port_open


def _listeners_of(pid_group: int) -> list[str]:
    """The TCP addresses the processes of *pid_group* listen on (from ss)."""
    out = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
    pids = {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _pgid(int(p.name)) == pid_group}
    return [line.split()[3] for line in out.splitlines() if any(f"pid={pid}," in line for pid in pids)]


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


@pytest.mark.parametrize("kind", [RedisServer, RabbitMQServer])
def test_lifecycle(kind):
    server = kind()
    try:
        server.start()
    except ServerUnavailable as exc:
        skip_or_fail(str(exc))
    try:
        root, port, group = server.root_dir, server.port, server._process.pid
        assert server.running and _port_open("127.0.0.1", port)
        assert server.url.startswith(("amqp://", "redis://")) and f":{port}/" in server.url
        if Path("/proc/net/tcp").exists() and subprocess.run(["which", "ss"], capture_output=True).returncode == 0:
            listening = _listeners_of(group)
            assert listening and all(address.startswith(("127.0.0.1:", "[::1]:")) for address in listening), listening
        server.halt()
        assert not server.running and not _port_open("127.0.0.1", port) and root.exists()
        server.restart()
        assert server.running and server.port == port and _port_open("127.0.0.1", port)
        group = server._process.pid
    finally:
        server.stop()
    assert not root.exists() and not _port_open("127.0.0.1", port)
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)


def test_missing_binaries_are_unavailable(monkeypatch):
    monkeypatch.setenv("ANITRACK_REDIS_SERVER", "/nonexistent/redis-server")
    monkeypatch.setenv("ANITRACK_RABBITMQ_SERVER", "/nonexistent/rabbitmq-server")
    with pytest.raises(ServerUnavailable, match="apt-get install -y redis-server"):
        RedisServer().start()
    with pytest.raises(ServerUnavailable, match="apt-get install -y rabbitmq-server"):
        RabbitMQServer().start()


def test_watchdog_stops_the_broker_when_the_test_process_is_killed():
    script = (
        "import os, signal\n"
        "from anitrack_core.testing_servers import RedisServer\n"
        "server = RedisServer().start()\n"
        "print(server.port, server.root_dir, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    if "ServerUnavailable" in result.stderr:
        skip_or_fail(result.stderr.strip().splitlines()[-1])
    assert result.returncode == -signal.SIGKILL, result.stderr
    port_text, root_text = result.stdout.split()
    deadline = time.monotonic() + 30
    while (_port_open("127.0.0.1", int(port_text)) or Path(root_text).exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _port_open("127.0.0.1", int(port_text)) and not Path(root_text).exists()
