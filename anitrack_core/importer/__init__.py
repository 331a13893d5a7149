"""Moving from Anitya: ``anitrack import anitya-db URL`` and ``anitrack import anitya-api BASE_URL``.

Modules: :mod:`.source_db` reads an Anitya database, :mod:`.source_api` an
Anitya instance's public API, :mod:`.writer` writes what they read into the
store (idempotent batches), :mod:`.checkpoint` remembers where an interrupted
run stopped, :mod:`.report` counts and lists what was skipped and why, and
:mod:`.progress` shows how far it got.  :func:`import_database` and
:func:`import_api` put them together.
"""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING

from .checkpoint import Checkpoint
from ..progress import Progress
from .report import ImportReport, SourceError

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["ImportReport", "SourceError", "import_api", "import_database"]


def import_database(runtime: Runtime, url: str, *, batch_size: int = 1000, publish_events: bool = False,
                    restart: bool = False, progress: bool = True, stream: IO[str] | None = None) -> ImportReport:
    """Import everything from the Anitya database at *url* (read-only) into *runtime*'s store."""
    from ..db.listings import refresh_missing
    from ..db.models import Project
    from .source_db import AnityaDatabase
    from .writer import Writer

    source = AnityaDatabase(url)
    report = ImportReport(source.shown_url)
    report.notes.append(f"Anitya schema revision {source.revision}")
    checkpoint = Checkpoint(runtime.settings.data_dir, "anitya-db", url)
    assert runtime.db is not None
    try:
        with runtime.db.connection_context():
            after = 0 if restart else int(checkpoint.load().get("after", 0))
            if after and not Project.select().where(Project.id == after).exists():
                after = 0  # the store is not the one the checkpoint was written for
            report.resumed_after = f"project {after}" if after else None
            writer = Writer(runtime.plugins, report, publish_events=publish_events)
            writer.distros(source.distros())
            writer.users(source.users(), source.tokens())
            total = source.count_projects()
            with Progress("projects", total, initial=total - source.count_projects(after), enabled=progress,
                          stream=stream if stream is not None else sys.stderr) as bar:
                for batch in source.project_batches(after, batch_size):
                    writer.projects(batch)
                    checkpoint.save(after=batch[-1]["id"])
                    bar.advance(len(batch))
            writer.orphan_packages(source.orphan_packages())
            writer.finish()
            refresh_missing(writer.schemes)
    finally:
        source.close()
    checkpoint.clear()
    return report


def import_api(runtime: Runtime, base_url: str, **options: object) -> ImportReport:
    """Import what the public API of the Anitya instance at *base_url* shows (see :mod:`.source_api`)."""
    from .source_api import import_from_api

    return import_from_api(runtime, base_url, **options)  # type: ignore[arg-type]
