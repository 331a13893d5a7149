"""One pooled database connection per request, given back when the request ends."""

from __future__ import annotations

import peewee
from bottle import Bottle


def install_store_hooks(app: Bottle, db: peewee.Database) -> None:
    @app.hook("before_request")
    def _connect() -> None:
        db.connect(reuse_if_open=True)

    @app.hook("after_request")
    def _release() -> None:
        if not db.is_closed():
            db.close()
