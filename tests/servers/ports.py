"""Loopback ports: the one free-port helper of the tests and benchmarks."""

from __future__ import annotations

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on *host* that is free now (another process may take it before you bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_open(host: str, port: int) -> bool:
    """Tell whether something accepts TCP connections on *host*:*port*."""
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False
