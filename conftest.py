"""Test-wide safety: tests never touch the internet.

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
