"""The application factory: a fresh Bottle app per call, no bottle globals."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from bottle import BaseRequest, Bottle, JSONPlugin, response

from anitrack_core.runtime import Runtime

from . import api_checks, api_v1, api_v2, api_webhooks, docs, feeds, metrics, pages
from .context import WebContext
from .errors import install_errors
from .params import MAX_BODY_BYTES, Invalid, invalid_response
from .store_hooks import install_store_hooks

#: the version of the HTTP API (what GET /api/version reports), not of the package
API_VERSION = "1.2"


def _dumps(value: Any) -> str:
    # keys sorted, as the existing service emits them
    return json.dumps(value, sort_keys=True)


def _input_errors(callback: Callable[..., Any]) -> Callable[..., Any]:
    """Turn field problems found while reading a request into one 400 naming the fields."""

    @functools.wraps(callback)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except Invalid as exc:
            raise invalid_response(exc.problems) from None

    return wrapper


def create_app(runtime: Runtime) -> Bottle:
    """The WSGI application for *runtime* (settings, plugins and an opened database)."""
    # bottle's limit of buffered request bodies is process-wide; form bodies get the same limit as JSON
    BaseRequest.MEMFILE_MAX = MAX_BODY_BYTES
    app = Bottle(catchall=True)
    app.config["json.enable"] = False  # replaced by the JSONPlugin below (sorted keys)
    app.install(JSONPlugin(json_dumps=_dumps))
    app.install(_input_errors)
    app.config["anitrack.runtime"] = runtime
    ctx = WebContext(runtime)
    install_errors(app, ctx.renderer.error_page)
    if runtime.db is not None:
        install_store_hooks(app, runtime.db)
        ctx.cookies.install(app)
    api_v2.add_routes(app, ctx)
    api_checks.add_routes(app, ctx)
    api_v1.add_routes(app, ctx)
    api_webhooks.add_routes(app, ctx)
    docs.add_routes(app, ctx)
    metrics.add_routes(app)
    feeds.add_routes(app, ctx)
    pages.add_routes(app, ctx)

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
