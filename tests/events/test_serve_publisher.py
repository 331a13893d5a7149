"""``anitrack serve`` relays the outbox from its first process only, for every process's events."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

from tests.servers import free_port

from .brokers import bound_queue, drain, fedora_messages, pika_channel


def amqp_peers(pid: int, port: int) -> int:
    """How many TCP connections process *pid* holds to 127.0.0.1:*port*."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            if remote_port == port and fields[9] in inodes:
                count += 1
    return count


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/net/tcp").exists(), reason="needs fork and /proc")
def test_serve_publishes_from_its_first_process_only(run_anitrack, anitrack_env, anitrack_rabbitmq):
    assert run_anitrack("db", "upgrade")[0] == 0
    assert run_anitrack("user", "add", "--email", "ops@example.org", "--username", "ops")[0] == 0
    token = run_anitrack("token", "add", "--email", "ops@example.org")[1].strip().splitlines()[-1]
    queue = f"test-serve-{uuid.uuid4().hex[:8]}"
    connection, channel = pika_channel(anitrack_rabbitmq.url)
    bound_queue(channel, queue, "amq.topic", ["org.anitrack.#"])
    port = free_port("127.0.0.1")
    env = {**os.environ, **anitrack_env, "ANITRACK_BROKER_URL": anitrack_rabbitmq.url}
    process = subprocess.Popen([sys.executable, "-m", "anitrack_core.cli", "serve", "--port", str(port),
                                "--workers", "3", "--no-scheduler"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(base + "/api/version", timeout=2)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline and process.poll() is None, "serve did not start"
                time.sleep(0.1)
        assert run_anitrack("distro", "add", "Fedora")[0] == 0  # written by another process altogether
        for i in range(12):  # a new connection each: the worker processes share the requests
            answer = requests.post(base + "/api/v2/projects/", headers={"Authorization": f"Token {token}"},
                                   json={"name": f"s{i}", "homepage": f"https://s{i}.example/",
                                         "backend": "custom", "version_url": f"https://s{i}.example/dl/"},
                                   timeout=10)
            assert answer.status_code == 201, answer.text
        deliveries = drain(channel, queue, expect=13, timeout=30)
        assert [m.body["message"].get("project") for m in fedora_messages(deliveries)[1:]] == [
            f"s{i}" for i in range(12)]
        assert fedora_messages(deliveries)[0].body["distro"] == {"name": "Fedora"}
        status = json.loads(run_anitrack("events", "status", "--json")[1])
        assert status["backlog"] == 0
        assert status["publisher"].split(":")[1] == str(process.pid), "the first process holds the lease"
        workers = children_of(process.pid)
        workers = [pid for pid in workers if Path(f"/proc/{pid}/cmdline").read_bytes().find(b"serve") >= 0]
        assert len(workers) == 2
        assert amqp_peers(process.pid, anitrack_rabbitmq.port) >= 1, "the first process talks to the broker"
        assert [amqp_peers(pid, anitrack_rabbitmq.port) for pid in workers] == [0, 0], "the workers do not"
    finally:
        process.terminate()
        process.wait(timeout=15)
        channel.queue_delete(queue)
        connection.close()
