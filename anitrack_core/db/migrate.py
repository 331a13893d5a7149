"""Versioned schema migrations, shipped in ``anitrack_core/db/migrations``.

Each ``NNNN_name.py`` file defines ``up(migrator, db)``; the history of
applied files lives in the ``schema_migration`` table.  ``anitrack db
upgrade`` applies what is pending; running it again does nothing.
"""

from __future__ import annotations

from importlib.resources import files

import peewee
from playhouse.migrations import MigrationError, Runner

from ..errors import StoreError

HISTORY_TABLE = "schema_migration"


def _runner(db: peewee.Database) -> Runner:
    return Runner(db, str(files("anitrack_core.db") / "migrations"), table_name=HISTORY_TABLE)


def pending(db: peewee.Database) -> list[str]:
    """Names of the migrations not yet applied to *db*."""
    with db.connection_context():
        return [m.name for m in _runner(db).status() if m.path and not m.applied]


def upgrade(db: peewee.Database) -> list[str]:
    """Apply every pending migration, each in its own transaction; returns their names."""
    try:
        with db.connection_context():
            return _runner(db).up()
    except MigrationError as exc:
        raise StoreError(f"schema migration failed: {exc}") from None


def require_current(db: peewee.Database) -> None:
    """Refuse to work on a database whose schema is missing or behind the code.

    :raises StoreError: telling the operator to run ``anitrack db upgrade``.
    """
    missing = pending(db)
    if missing:
        raise StoreError(
            f"the database schema is not up to date ({len(missing)} migration(s) pending: "
            f"{', '.join(missing)}); run `anitrack db upgrade`"
        )
