"""Fake upstreams: real HTTP(S) servers on loopback addresses, answering from a route table.

Each server counts the TCP connections it accepted, so a test can prove that
a refused URL never reached it, and records every request it answered.
"""

from __future__ import annotations

import http.server
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Route = Callable[["Handler"], None]


@dataclass
class Seen:
    """One request a fake upstream received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real upstreams
    server: FakeUpstream

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append(Seen(self.command, self.path, dict(self.headers.items()), body))
        route = self.server.routes.get(self.path.split("?")[0])
        if route is None:
            self.reply(404, b"no such page")
        else:
            route(self)

    do_GET = do_POST = do_HEAD = _dispatch

    def reply(self, status: int = 200, body: bytes | str = b"", headers: dict[str, str] | None = None) -> None:
        """Send a complete answer with a Content-Length."""
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def drip(self, data: bytes, interval: float) -> None:
        """Write *data* one byte at a time, *interval* seconds apart, until the client leaves."""
        for index in range(len(data)):
            if self.server.stopping.wait(interval):
                return
            try:
                self.wfile.write(data[index : index + 1])
                self.wfile.flush()
            except OSError:
                return

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class FakeUpstream(http.server.ThreadingHTTPServer):
    """An HTTP server on *host* (port chosen by the system), optionally TLS."""

    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1", *, tls: ssl.SSLContext | None = None) -> None:
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, 0), Handler)
        self.host = host
        self.tls = tls
        self.routes: dict[str, Route] = {}
        self.seen: list[Seen] = []
        self.connections = 0
        self.sni: list[str | None] = []
        self.errors: list[BaseException] = []
        self.stopping = threading.Event()
        if tls is not None:
            tls.sni_callback = lambda sock, name, ctx: self.sni.append(name)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str = "/", *, host: str | None = None) -> str:
        shown = host or (f"[{self.host}]" if ":" in self.host else self.host)
        return f"{'https' if self.tls else 'http'}://{shown}:{self.port}{path}"

    def route(self, path: str) -> Callable[[Route], Route]:
        def register(func: Route) -> Route:
            self.routes[path] = func
            return func

        return register

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        request.settimeout(5)
        wrapped = self.tls.wrap_socket(request, server_side=True)
        try:
            super().finish_request(wrapped, client_address)
        finally:
            wrapped.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        self.errors.append(sys.exc_info()[1])  # type: ignore[arg-type]

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self._thread.join(5)


def wait_until(predicate: Callable[[], bool], timeout: float = 2.0) -> bool:
    """Poll *predicate* until it holds or *timeout* passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
