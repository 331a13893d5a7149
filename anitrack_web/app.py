"""The application factory: a fresh Bottle app per call, no bottle globals."""

from __future__ import annotations

from bottle import Bottle, response

from anitrack_core.runtime import Runtime

from .errors import install_json_errors
from .store_hooks import install_store_hooks

#: the version of the HTTP API (what GET /api/version reports), not of the package
API_VERSION = "1.2"


def create_app(runtime: Runtime) -> Bottle:
    """The WSGI application for *runtime* (settings, plugins and an opened database)."""
    app = Bottle(catchall=True)
    app.config["anitrack.runtime"] = runtime
    install_json_errors(app)
    if runtime.db is not None:
        install_store_hooks(app, runtime.db)

    @app.get(["/api/version", "/api/version/"])
    def api_version() -> dict[str, str]:
        return {"version": API_VERSION}

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        if runtime.db is not None:
            runtime.db.execute_sql("SELECT 1")
        response.set_header("Cache-Control", "no-store")
        return {"status": "ok"}

    return app
