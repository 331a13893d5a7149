"""Every error is JSON; a slow client does not hold up the others."""

import socket
import time

import pytest
import requests

from .conftest import live_server


def test_unknown_route_is_json_404(api):
    response = api.get("/api/v2/nope/")
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json() == {"error": "no such resource: /api/v2/nope/", "status": 404}


@pytest.mark.parametrize("method, path", [("PUT", "/api/v2/projects/"), ("DELETE", "/api/v2/packages/"),
                                          ("POST", "/api/v2/versions/nope"), ("PATCH", "/api/v2/versions/")])
def test_wrong_method_is_json_405(api, method, path):
    response = api.request(method, path)
    assert response.status_code in (404, 405)
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json()["status"] == response.status_code


def test_v2_paths_without_slash_are_404_json_except_the_lists(api):
    response = api.get("/api/v2/nope")
    assert response.status_code == 404 and response.json()["status"] == 404
    assert api.get("/api/v2/projects").status_code == 200
    response = api.post("/api/v2/projects", json={})
    assert response.status_code == 405 and response.json()["status"] == 405


def test_internal_errors_are_json_500_without_details(runtime):
    from anitrack_web import create_app

    app = create_app(runtime)

    @app.get("/api/v2/boom/")
    def boom():
        raise RuntimeError("secret detail")

    with live_server(app) as base:
        response = requests.get(f"{base}/api/v2/boom/", timeout=10)
    assert response.status_code == 500
    assert response.json() == {"error": "internal server error", "status": 500}
    assert "secret" not in response.text


def test_a_slow_client_does_not_block_others(api):
    host, port = api.base.removeprefix("http://").split(":")
    slow = []
    for _ in range(8):  # more than the server's worker threads
        sock = socket.create_connection((host, int(port)))
        sock.sendall(b"POST /api/v2/projects/ HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{")
        slow.append(sock)
    try:
        started = time.monotonic()
        response = api.get("/api/v2/projects/")
        assert response.status_code == 200
        assert time.monotonic() - started < 5, "the request waited for the slow clients"
    finally:
        for sock in slow:
            sock.close()
