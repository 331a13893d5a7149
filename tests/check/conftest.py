"""Fixtures of the fetching tests: loopback fake upstreams, clients, test certificates."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from anitrack_core.check.http import FetchPolicy, HttpClient
from anitrack_core.testing import skip_or_fail

from .fakes import FakeUpstream

TEST_UA = "anitrack-test/1.0 (+http://tests.invalid)"


@pytest.fixture
def make_upstream() -> Iterator[Callable[..., FakeUpstream]]:
    """``make_upstream(host="127.0.0.1", tls=None)`` starts a fake upstream, stopped after the test."""
    servers: list[FakeUpstream] = []

    def make(host: str = "127.0.0.1", *, tls: ssl.SSLContext | None = None) -> FakeUpstream:
        try:
            server = FakeUpstream(host, tls=tls)
        except OSError as exc:
            skip_or_fail(f"cannot listen on {host}: {exc}")
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def upstream(make_upstream: Callable[..., FakeUpstream]) -> FakeUpstream:
    """A fake upstream on 127.0.0.1."""
    return make_upstream()


@pytest.fixture
def make_client() -> Iterator[Callable[..., HttpClient]]:
    """``make_client(resolver=..., address_check=..., ca_certs=..., **policy)``; private upstreams allowed
    unless ``allow_private=False`` is given."""
    clients: list[HttpClient] = []

    def make(*, resolver: Any = None, address_check: Any = None, ca_certs: str | None = None,
             **policy: Any) -> HttpClient:
        policy.setdefault("user_agent", TEST_UA)
        policy.setdefault("allow_private", True)
        client = HttpClient(FetchPolicy(**policy), resolver=resolver, address_check=address_check,
                            ca_certs=ca_certs)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@dataclass(frozen=True)
class Certificates:
    """A test certificate authority and a server certificate it signed for ``upstream.test``."""

    ca: Path
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, self.key)
        return context


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="session")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    """Made at test time with the ``openssl`` command."""
    if shutil.which("openssl") is None:
        skip_or_fail("the openssl command is needed to make test certificates (apt-get install openssl)")
    folder = tmp_path_factory.mktemp("tls")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", "-new", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=anitrack test CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)
    _openssl("req", "-new", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=upstream.test",
             cwd=folder)
    (folder / "leaf.ext").write_text(
        "subjectAltName=DNS:upstream.test\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    _openssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "leaf.pem", "-days", "2", "-extfile", "leaf.ext", cwd=folder)
    return Certificates(ca=folder / "ca.pem", cert=folder / "leaf.pem", key=folder / "leaf.key")
