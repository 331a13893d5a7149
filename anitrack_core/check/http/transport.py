"""The connections under :mod:`anitrack_core.check.http.client`: guarded, pinned and deadline-bound.

requests sends through an :class:`~requests.adapters.HTTPAdapter`; the adapter
here makes urllib3 build its connections from classes that

* resolve the host once through an :class:`~anitrack_core.check.http.guard.AddressGuard`,
  which refuses the answer unless every address in it is allowed, and then
  open the socket to one of those checked addresses.  Nothing resolves the
  name a second time, so a DNS answer that changes in between (DNS
  rebinding) cannot send the connection elsewhere.  The Host header, TLS SNI
  and certificate checks still use the host name of the URL;
* bound every socket read by the deadline of the check being served (see
  :func:`deadline`), so an upstream that drips one byte a second, in its
  headers, its TLS handshake or its body, cannot hold a worker longer than
  the check's total deadline.  A per-read timeout alone would never fire.

Proxies are refused: a proxy would connect on our behalf and bypass the guard.
"""

from __future__ import annotations

import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, TypeVar

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.util.ssl_ import create_urllib3_context, resolve_cert_reqs

from .guard import AddressGuard, IPAddress

_T = TypeVar("_T")
_state = threading.local()


@contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Bound the socket operations of this thread by ``time.monotonic()`` value *at*."""
    previous = getattr(_state, "at", None)
    _state.at = at
    try:
        yield
    finally:
        _state.at = previous


def time_left() -> float | None:
    """Seconds until the current thread's deadline, or None when there is none."""
    at = getattr(_state, "at", None)
    return None if at is None else at - time.monotonic()


def _bounded(sock: socket.socket, call: Callable[..., _T], *args: Any) -> _T:
    """Run a blocking read of *sock*, its timeout lowered to the time left if needed."""
    left = time_left()
    if left is None:
        return call(*args)
    if left <= 0:
        raise TimeoutError("the deadline of the check has passed")
    current = sock.gettimeout()
    if current is not None and current <= left:
        return call(*args)
    sock.settimeout(left)
    try:
        return call(*args)
    finally:
        sock.settimeout(current)


class _DeadlineSocket(socket.socket):
    """A TCP socket whose reads respect the deadline of the current thread."""

    __slots__ = ()

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        return _bounded(self, super().recv, bufsize, flags)

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        return _bounded(self, super().recv_into, buffer, nbytes, flags)


class _DeadlineSSLSocket(ssl.SSLSocket):
    """A TLS socket whose reads respect the deadline of the current thread."""

    def read(self, len: int = 1024, buffer: Any = None) -> Any:  # noqa: A002 - the base's name
        return _bounded(self, super().read, len, buffer)


def _open_socket(
    address: IPAddress, port: int, timeout: float | None, options: Any, source: tuple[str, int] | None
) -> socket.socket:
    """Connect a deadline-bound socket to exactly *address* (no name resolution)."""
    left = time_left()
    if left is not None:
        if left <= 0:
            raise TimeoutError("the deadline of the check has passed")
        timeout = left if timeout is None else min(timeout, left)
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    info = socket.getaddrinfo(str(address), port, family, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)[0]
    sock = _DeadlineSocket(info[0], info[1], info[2])
    try:
        for option in options or ():
            sock.setsockopt(*option)
        sock.settimeout(timeout)
        if source:
            sock.bind(source)
        sock.connect(info[4])
    except BaseException:
        sock.close()
        raise
    return sock


class _PinnedConnectionMixin:
    """Replaces urllib3's ``_new_conn``: resolve through the guard, connect to a checked address."""

    guard: ClassVar[AddressGuard]
    _dns_host: str
    host: str
    port: int
    timeout: float | None
    socket_options: Any
    source_address: tuple[str, int] | None

    def _new_conn(self) -> socket.socket:
        addresses = self.guard.resolve(self._dns_host.strip("[]"), self.port)
        failure: OSError | None = None
        for address in addresses:  # in the resolver's order, the next one when one fails
            try:
                sock = _open_socket(address, self.port, self.timeout, self.socket_options, self.source_address)
            except OSError as exc:
                failure = exc
                continue
            sys.audit("http.client.connect", self, self.host, self.port)
            return sock
        if isinstance(failure, TimeoutError):
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
            ) from failure
        raise NewConnectionError(  # type: ignore[arg-type]
            self, f"Failed to establish a new connection: {failure}"
        ) from failure


class PinnedHTTPConnection(_PinnedConnectionMixin, HTTPConnection):
    """Plain HTTP to a checked address."""


class PinnedHTTPSConnection(_PinnedConnectionMixin, HTTPSConnection):
    """HTTPS to a checked address; the certificate is checked against the URL's host name."""

    def connect(self) -> None:
        if self.ssl_context is None:
            # Our own context per connection (urllib3 would build one too), so its
            # sockets are deadline-bound; the shared settings are left untouched.
            context = create_urllib3_context(cert_reqs=resolve_cert_reqs(self.cert_reqs))
            context.sslsocket_class = _DeadlineSSLSocket
            self.ssl_context = context
        super().connect()


class _QuietHTTPSConnectionPool(HTTPSConnectionPool):
    """For projects marked insecure only: no InsecureRequestWarning, the project asked for it."""

    def _validate_conn(self, conn: Any) -> None:
        if conn.is_closed:
            conn.connect()


def _pool_classes(guard: AddressGuard, *, insecure: bool) -> dict[str, type[HTTPConnectionPool]]:
    http_conn = type("GuardedHTTPConnection", (PinnedHTTPConnection,), {"guard": guard})
    https_conn = type("GuardedHTTPSConnection", (PinnedHTTPSConnection,), {"guard": guard})
    https_base = _QuietHTTPSConnectionPool if insecure else HTTPSConnectionPool
    return {
        "http": type("GuardedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": http_conn}),
        "https": type("GuardedHTTPSConnectionPool", (https_base,), {"ConnectionCls": https_conn}),
    }


class GuardedAdapter(HTTPAdapter):
    """A requests adapter whose every connection goes through *guard*.

    :param insecure: the adapter of the session that skips certificate checks.
    :param pool_connections: hosts whose connections are kept alive.
    :param pool_maxsize: connections kept alive per host.
    """

    def __init__(
        self, guard: AddressGuard, *, insecure: bool = False, pool_connections: int = 100, pool_maxsize: int = 32
    ) -> None:
        self._pool_classes = _pool_classes(guard, insecure=insecure)
        super().__init__(pool_connections=pool_connections, pool_maxsize=pool_maxsize, max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(self._pool_classes)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        raise RuntimeError("upstream requests never use a proxy: it would bypass the address guard")
