"""``anitrack serve``: the web app on waitress."""

from __future__ import annotations

import logging
import sys

import waitress

from anitrack_core.runtime import Runtime

from .app import create_app

log = logging.getLogger(__name__)
THREADS = 8


def serve(runtime: Runtime, *, host: str, port: int, scheduler: bool = True) -> int:
    """Serve until interrupted.  Returns the process exit code."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    app = create_app(runtime)
    checks = None
    if scheduler:
        from anitrack_core.check.runner import Checker
        from anitrack_core.check.scheduler import Scheduler

        checks = Scheduler(Checker(runtime), runtime.settings.scheduler_interval)
    print(f"anitrack serving on http://{host}:{port}/ (database: {_describe(runtime)}; "
          f"events: {runtime.settings.broker_url}; scheduler: "
          f"{'every %g s' % runtime.settings.scheduler_interval if checks else 'off'})", file=sys.stderr, flush=True)
    try:
        server = waitress.create_server(app, host=host, port=port, threads=THREADS, ident="anitrack")
    except OSError as exc:
        print(f"anitrack: error: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 1
    if checks is not None:
        checks.start()
    try:
        server.run()
    finally:
        if checks is not None:
            checks.stop(timeout=5)
    return 0


def _describe(runtime: Runtime) -> str:
    from anitrack_core.db.database import redact

    return redact(runtime.settings.database_url)
