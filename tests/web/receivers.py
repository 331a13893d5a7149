"""Webhook receivers on loopback for the tests: pytest-httpserver servers that record what they receive."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.servers import free_port


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    """A webhook receiver (``POST /hook``) on a fixed loopback port, which can go down and come back.

    :param answer: ``answer(received) -> status`` (default 200); it may sleep to hang (each request
        has its own thread).
    """

    def __init__(self, answer: Callable[[Received], int] | None = None) -> None:
        self.port = free_port("127.0.0.1")
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.answer = answer or (lambda received: 200)
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._server = HTTPServer(host="127.0.0.1", port=self.port, threaded=True)
        self._server.expect_request("/hook", method="POST").respond_with_handler(self._receive)

    def _receive(self, request: Request) -> Response:
        seen = Received({k.lower(): v for k, v in request.headers.items()}, request.get_data(), time.monotonic())
        with self._lock:
            self.received.append(seen)
        return Response(status=self.answer(seen))

    def start(self) -> Receiver:
        self._server.start()
        return self

    def stop(self) -> None:
        if self._server.is_running():
            self._server.stop()

    def ids(self) -> list[str]:
        with self._lock:
            return [r.headers["webhook-id"] for r in self.received]
