"""``anitrack serve``: the web app on waitress, in one or more worker processes.

Python runs one thread at a time per process, so a single process uses one
core however many threads it has.  ``serve`` binds the listening socket once
and forks ``web_workers`` processes that accept on it (one per core by
default, where the platform can fork); each has its own database connections
and ``web_threads`` threads.  Only the first process runs the scheduler and
the event publisher (the workers' events reach it through the outbox).  The
workers exit when the first process does, however it ends.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time

import waitress

from anitrack_core.runtime import Runtime, worker_count

from .app import create_app

log = logging.getLogger(__name__)


def _exit_with_parent(parent: int) -> None:
    """In a forked worker: end when the first process is gone (even if it was killed)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, name="anitrack-parent-watch", daemon=True).start()


def _run(runtime: Runtime, sock: socket.socket, threads: int, *, scheduler: bool, publisher: bool = False) -> None:
    app = create_app(runtime)
    checks = events = hooks = None
    if publisher:  # the outbox relays (events, webhooks): in the first process only, started after the forks
        from anitrack_core.events.publisher import Publisher
        from anitrack_core.webhooks.relay import WebhookRelay

        events = Publisher(runtime.settings).start()
        hooks = WebhookRelay(runtime.settings).start()
    if scheduler:
        from anitrack_core.check.runner import Checker
        from anitrack_core.check.scheduler import Scheduler

        checks = Scheduler(Checker(runtime), runtime.settings.scheduler_interval)
        checks.start()
    server = waitress.create_server(app, sockets=[sock], threads=threads, ident="anitrack")
    try:
        server.run()
    finally:
        if checks is not None:
            checks.stop(timeout=5)
        if events is not None:
            events.stop(timeout=5)
        if hooks is not None:
            hooks.stop(timeout=5)


def serve(runtime: Runtime, *, host: str, port: int, scheduler: bool = True, workers: int | None = None) -> int:
    """Serve until interrupted.  Returns the process exit code."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    settings = runtime.settings
    count = worker_count(settings.web_workers if workers is None else workers, fork=True)
    try:
        sock = socket.create_server((host, port), backlog=1024)
    except OSError as exc:
        print(f"anitrack: error: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"anitrack serving on http://{host}:{port}/ ({count} process(es) of {settings.web_threads} threads; "
          f"database: {_describe(runtime)}; events: {settings.broker_url}; scheduler: "
          f"{'every %g s' % settings.scheduler_interval if scheduler else 'off'})", file=sys.stderr, flush=True)
    if runtime.db is not None:
        runtime.db.close_all()  # no database connection may cross a fork
    parent, children = os.getpid(), []
    for _ in range(count - 1):
        pid = os.fork()
        if pid == 0:
            _exit_with_parent(parent)
            try:
                _run(runtime, sock, settings.web_threads, scheduler=False)
            finally:
                os._exit(0)
        children.append(pid)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop cleanly, and stop the workers
    try:
        _run(runtime, sock, settings.web_threads, scheduler=scheduler, publisher=True)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    return 0


def _describe(runtime: Runtime) -> str:
    from anitrack_core.db.database import redact

    return redact(runtime.settings.database_url)
