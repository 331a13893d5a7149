"""Webhook receivers on loopback for the tests: real HTTP servers that record what they receive."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from anitrack_core.testing_servers import free_port


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    """A webhook receiver on a fixed loopback port, which can go down and come back.

    :param answer: ``answer(received) -> status`` (default 200); it may sleep to hang.
    """

    def __init__(self, answer: Callable[[Received], int] | None = None) -> None:
        self.port = free_port("127.0.0.1")
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.answer = answer or (lambda received: 200)
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = Received({k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length),
                                time.monotonic())
                with receiver._lock:
                    receiver.received.append(seen)
                status = receiver.answer(seen)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def ids(self) -> list[str]:
        with self._lock:
            return [r.headers["webhook-id"] for r in self.received]
