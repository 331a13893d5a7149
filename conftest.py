"""Test-wide safety (tests never touch the internet) and the `--store-only` option.

Name resolution is limited to ``localhost`` and numeric addresses, so a test
that would reach a real upstream fails at once with a clear error instead of
asking the network (upstreams are faked on loopback or replayed from
recordings).  A test may still patch ``socket.getaddrinfo`` itself.
"""

import ipaddress
import socket

import pytest

_real_getaddrinfo = socket.getaddrinfo


def _loopback_only_getaddrinfo(host, port, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if name is None or name.rstrip(".").lower() == "localhost":
        return _real_getaddrinfo(host, port, *args, **kwargs)
    try:
        ipaddress.ip_address(name.strip("[]").split("%")[0])
    except ValueError:
        raise socket.gaierror(socket.EAI_NONAME, f"tests never touch the internet: {name!r} is not resolved") from None
    return _real_getaddrinfo(host, port, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_internet(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", _loopback_only_getaddrinfo)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-only", action="store_true",
                     help="run only the tests that use a database (anitrack_database_url)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--store-only`` keeps the tests that ask, directly or through other fixtures, for
    ``anitrack_database_url``: the run on a second database engine repeats only what that engine changes."""
    if not config.getoption("--store-only"):
        return
    kept, dropped = [], []
    for item in items:
        (kept if "anitrack_database_url" in getattr(item, "fixturenames", ()) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
