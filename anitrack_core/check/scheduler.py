"""The in-process scheduler of ``anitrack serve``: a pass over the due projects, then a pause."""

from __future__ import annotations

import logging
import threading

from ..db.models import database_proxy
from .runner import Checker

log = logging.getLogger(__name__)


class Scheduler:
    """Runs :meth:`Checker.run_pass` every *interval* seconds in a daemon thread until stopped."""

    def __init__(self, checker: Checker, interval: float) -> None:
        self.checker = checker
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="anitrack-scheduler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                with database_proxy.connection_context():
                    summary = self.checker.run_pass()
                if summary.checked:
                    log.info("scheduler pass: %s", summary.line())
            except Exception:  # a pass that fails is logged; the next one still runs
                log.exception("scheduler pass failed")
            self._stop.wait(self.interval)
