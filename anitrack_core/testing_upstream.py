"""A fake upstream on loopback for tests: canned answers per path, every request recorded."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Answer:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


@dataclass
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class FakeUpstream:
    """``upstream.route("/releases/", "<html>...")``; ``upstream.url("/releases/")``; ``upstream.requests``.

    A route may be an :class:`Answer`, a string/bytes body (200), or a callable
    taking the :class:`SeenRequest` and returning an Answer.  Unknown paths are 404.
    """

    def __init__(self) -> None:
        self.routes: dict[str, Any] = {}
        self.requests: list[SeenRequest] = []
        self._lock = threading.Lock()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = SeenRequest(self.command, self.path, dict(self.headers.items()),
                                   self.rfile.read(length) if length else b"")
                with upstream._lock:
                    upstream.requests.append(seen)
                    route = upstream.routes.get(self.path)
                answer = route(seen) if callable(route) else route
                if answer is None:
                    answer = Answer(404, "not found")
                elif not isinstance(answer, Answer):
                    answer = Answer(200, answer)
                body = answer.encoded()
                self.send_response(answer.status)
                for key, value in answer.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_POST = do_HEAD = _serve

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def serving(self, backend: Any) -> Any:
        """*backend* with its upstream addresses pointed here: ``api_base`` (its path kept) and,
        if it has one, ``feed_url`` (``/feed``).  Returns the backend."""
        backend.api_base = self.base + urlsplit(backend.api_base).path
        if hasattr(backend, "feed_url"):
            backend.feed_url = self.url("/feed")
        return backend

    def route(self, path: str, answer: Any) -> None:
        with self._lock:
            self.routes[path] = answer

    def requests_to(self, path: str) -> list[SeenRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def start(self) -> FakeUpstream:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
