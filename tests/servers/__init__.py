"""The servers this project's own tests and benchmarks start: PostgreSQL, RabbitMQ, Redis, a WSGI app.

Test infrastructure, not product: it lives under tests/ and is imported as
``tests.servers`` (pytest puts the checkout's root on ``sys.path`` through the
root conftest.py; the scripts of bench/ add it themselves).  What a plugin
author needs stays in ``anitrack_core.testing``.

:exc:`ServerUnavailable` means something is not installed: outside CI a test
may skip on it, in CI it must fail (``anitrack_core.testing.skip_or_fail``).
:exc:`ServerError` means the server is installed but misbehaved, which is
never a reason to skip.
"""

from .errors import ServerError, ServerUnavailable
from .ports import free_port, port_open

__all__ = ["ServerError", "ServerUnavailable", "free_port", "port_open"]
