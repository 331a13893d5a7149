"""A WSGI app served for real on loopback, for the tests that drive anitrack over HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def live_wsgi_server(app: Any, threads: int = 4, port: int = 0) -> Iterator[str]:
    """Serve the WSGI *app* with waitress on loopback in a thread; yields the base URL.

    :param port: the port to listen on; 0 (the default) takes a free one.
    """
    import waitress.server

    server = waitress.server.create_server(app, host="127.0.0.1", port=port, threads=threads)

    def run() -> None:
        try:
            server.run()
        except OSError:  # the sockets are closed under the loop when the server stops
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        # in the server's own thread: its loop runs while any connection is open, and a client's
        # keep-alive connection would hold it for waitress's channel timeout (2 minutes)
        try:
            server.trigger.pull_trigger(lambda: _close_connections(server))
        except OSError:  # its trigger is closed already: the loop is gone, close what is left from here
            server.close()
        thread.join(timeout=5)
        server.task_dispatcher.shutdown()


def _close_connections(server: Any) -> None:
    for channel in list(server._map.values()):
        if channel is not server and channel is not server.trigger:
            channel.close()
    server.close()
