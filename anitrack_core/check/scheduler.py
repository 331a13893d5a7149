"""The in-process scheduler of ``anitrack serve``: a pass over the due projects, then a pause.

Before each pass the feeds of recent releases (see :mod:`anitrack_core.check.feeds`)
are read, and the stored projects they name are moved to the front of the pass.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime

from ..db.models import Project, database_proxy
from ..errors import StoreError
from .feeds import projects_named_by_feeds
from .runner import Checker, PassFailed

#: the next_check of projects a feed named: before every other due project
FIRST = datetime(1970, 1, 1)

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

    def promote_feed_projects(self) -> int:
        """Make the projects the feeds name due first; returns how many."""
        ids = projects_named_by_feeds(self.checker.plugins, self.checker.http, backend_for=self.checker.backend)
        if not ids:
            return 0
        return Project.update(next_check=FIRST).where(Project.id.in_(ids)).execute()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(self.interval)

    def run_once(self) -> None:
        """One pass (feeds first); its failure is logged, as one line when the database caused it (the pass
        record says it too), and never ends the loop: the next pass takes the projects still due."""
        try:
            with database_proxy.connection_context():
                if self.checker.settings.use_feeds:
                    self.promote_feed_projects()
                summary = self.checker.run_pass(stop=self._stop)
            if summary.checked:
                log.info("scheduler pass: %s", summary.line())
        except PassFailed as exc:
            log.error("scheduler pass: %s; %s", exc.summary.line(), exc)
        except StoreError as exc:
            log.error("scheduler pass failed: %s", exc)
        except Exception:  # a bug: logged with its traceback; the next pass still runs
            log.exception("scheduler pass failed")
