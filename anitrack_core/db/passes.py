"""The records of check passes (table ``run``), written as a pass goes.

A pass's record is created ``started`` before its first batch, its counts are
added by each batch in that batch's own transaction (so they always match what
was saved), and it ends ``finished``, ``failed`` (the database refused a batch;
``cause`` says why) or ``interrupted`` (stopped, or its process was killed).

A killed process cannot write its own end, and a pass that failed because the
database refused writing (a full disk) may not be able to either: a
``started`` record that no running pass owns is shown as ``interrupted``
(:func:`shown`) and written so by the next pass (:func:`close_abandoned`),
or, when the next pass runs in the same process (``anitrack serve``'s
scheduler), with the end that could not be written.  A pass of this machine is
known gone at once; one of another machine when it has saved nothing for
:data:`SILENT_FOR`.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta

from .failures import retrying
from .models import Run, utcnow

log = logging.getLogger(__name__)

STARTED, FINISHED, INTERRUPTED, FAILED = "started", "finished", "interrupted", "failed"
#: a started pass of another machine that has saved nothing for this long is taken as abandoned
SILENT_FOR = timedelta(minutes=15)
ABANDONED = ("the process running the pass ({owner}) ended without recording the pass's end: it was killed (or its"
             " machine stopped), or the database refused the record (see that process's output); the projects it"
             " had not saved stay due")
#: the passes of this process that are running
_ACTIVE: set[int] = set()
#: the ends of passes of this process that the database refused: (state, cause, when), written by the next pass
_UNRECORDED: dict[int, tuple[str, str | None, datetime]] = {}


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed child that nobody has waited for yet is a zombie: gone all the same
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return True


def owner_gone(run: Run, *, now: datetime | None = None) -> bool:
    """Whether the process of a ``started`` record can no longer finish it."""
    host, _, pid = (run.owner or "").rpartition(":")
    if host == socket.gethostname() and pid.isdigit():  # this machine's: known for sure
        return run.id not in _ACTIVE if int(pid) == os.getpid() else not _pid_running(int(pid))
    last_sign = run.updated_on or run.started_on or run.created_on
    return last_sign is None or (now or utcnow()) - last_sign > SILENT_FOR


def shown(run: Run, *, now: datetime | None = None) -> tuple[str, str | None]:
    """The state and cause to show for *run*: its own, except ``interrupted`` for a started one whose
    process is gone (written so by the next pass)."""
    if run.state == STARTED and owner_gone(run, now=now):
        return INTERRUPTED, ABANDONED.format(owner=run.owner or "?")
    return run.state, run.cause


def close_abandoned() -> int:
    """Write ``interrupted`` on the started records whose process is gone; returns how many."""
    closed = 0
    now = utcnow()
    for run in Run.select().where(Run.state == STARTED):
        if owner_gone(run, now=now):
            state, cause, ended = _UNRECORDED.pop(run.id, None) or (INTERRUPTED, ABANDONED.format(owner=run.owner or "?"),
                                                              None)
            closed += (Run.update(state=state, cause=cause, finished_on=ended)
                       .where((Run.id == run.id) & (Run.state == STARTED)).execute())
    return closed


def start_pass(started_on: datetime) -> Run:
    """Close the abandoned records, then create this pass's, ``started``."""
    db = Run._meta.database
    with db.atomic():
        close_abandoned()
        run = Run.create(created_on=started_on, started_on=started_on, updated_on=started_on, state=STARTED,
                         owner=this_process())
    _ACTIVE.add(run.id)
    return run


def add_batch(run_id: int, *, checked: int, ok: int, errors: int, ratelimited: int) -> None:
    """Add a batch's counts to the record (call it inside the batch's transaction)."""
    Run.update(total_count=Run.total_count + checked, success_count=Run.success_count + ok,
               error_count=Run.error_count + errors, ratelimit_count=Run.ratelimit_count + ratelimited,
               updated_on=utcnow()).where(Run.id == run_id).execute()


def end_pass(run_id: int, state: str, cause: str | None = None, *, patience: float = 0.0) -> bool:
    """Write how the pass ended, trying again for *patience* seconds while the database is locked (or its
    connection lost); False (logged) when the database refuses even that."""
    now = utcnow()
    _ACTIVE.discard(run_id)
    db = Run._meta.database

    def write() -> None:
        with db.atomic():
            Run.update(state=state, cause=cause, finished_on=now, updated_on=now).where(Run.id == run_id).execute()

    try:
        retrying(write, patience=patience, db=db, what=f"could not record the end of check pass {run_id}")
    except Exception as exc:  # noqa: BLE001  (the trouble that ended the pass may forbid writing its end too)
        _UNRECORDED[run_id] = (state, cause, now)
        log.warning("could not record the end (%s) of check pass %s (%s); the next pass will", state, run_id, exc)
        return False
    return True


def recent_passes(limit: int = 10) -> list[Run]:
    """The *limit* latest records, newest first (read only: show them with :func:`shown`)."""
    return list(Run.select().order_by(Run.created_on.desc()).limit(limit))
