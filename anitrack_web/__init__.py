"""The bundled web application: the HTTP API over the store, served by waitress."""

from .app import create_app

__all__ = ["create_app"]
