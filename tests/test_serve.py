"""`anitrack serve`, driven over real HTTP as a client would."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.servers import free_port


def get(url, method="GET"):
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def start_server(run_anitrack, *extra):
    assert run_anitrack("db", "upgrade")[0] == 0
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "anitrack_core.cli", "serve", "--port", str(port), *extra],
                               env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            get(base + "/healthz")
            break
        except OSError:
            if process.poll() is not None:
                pytest.fail("serve exited: " + process.stderr.read())
            time.sleep(0.1)
    else:
        process.kill()
        pytest.fail("serve did not start listening within 20 s")
    return process, base


@pytest.fixture
def server(run_anitrack):
    process, base = start_server(run_anitrack)
    yield base
    process.terminate()
    process.wait(timeout=10)


def children_of(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


@pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes need fork")
def test_several_worker_processes_serve_and_stop_together(run_anitrack):
    process, base = start_server(run_anitrack, "--workers", "3", "--no-scheduler")
    try:
        workers = children_of(process.pid)
        assert len(workers) == 2, workers
        for _ in range(20):
            assert get(base + "/api/version")[0] == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") and "Z" not in open(f"/proc/{pid}/stat").read().split()[2]
              for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")
                and open(f"/proc/{pid}/stat").read().split()[2] != "Z"], "workers outlived the server"


def test_workers_must_be_positive(run_anitrack):
    code, _, err = run_anitrack("serve", "--workers", "0")
    assert code == 2 and "must be 1 or more" in err


def test_serves_the_api_version_with_and_without_slash(server):
    for path in ("/api/version", "/api/version/"):
        status, headers, body = get(server + path)
        assert status == 200 and headers["Content-Type"].startswith("application/json")
        assert json.loads(body) == {"version": "1.2"}


def test_unknown_route_and_wrong_method_are_json_on_the_api(server):
    status, headers, body = get(server + "/api/nope")
    assert status == 404 and headers["Content-Type"].startswith("application/json")
    assert json.loads(body) == {"error": "no such resource: /api/nope", "status": 404, "output": "notok"}
    status, headers, body = get(server + "/nope")
    assert status == 404 and headers["Content-Type"].startswith("text/html")
    status, headers, body = get(server + "/api/version", method="DELETE")
    assert status == 405 and headers["Content-Type"].startswith("application/json")
    assert json.loads(body) == {"error": "method DELETE is not allowed on /api/version", "status": 405,
                                "output": "notok"}


def test_serve_refuses_an_unmigrated_database(run_anitrack):
    code, _, err = run_anitrack("serve", "--port", str(free_port()))
    assert code == 1 and "run `anitrack db upgrade`" in err


def test_serve_reports_a_busy_port(run_anitrack):
    assert run_anitrack("db", "upgrade")[0] == 0
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        code, _, err = run_anitrack("serve", "--port", str(sock.getsockname()[1]))
    assert code == 1 and "cannot listen on 127.0.0.1" in err
