"""Certificates are checked (against the URL's host name, although the connection is pinned to
the checked address) unless the project is insecure."""

from __future__ import annotations

import time
import warnings

import pytest

from anitrack_core.check.http import FetchError


@pytest.fixture
def tls_upstream(make_upstream, certificates):
    server = make_upstream(tls=certificates.server_context())
    server.routes["/"] = lambda h: h.reply(200, f"secret for {h.headers['Host']}")
    return server


def _to_loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


def test_an_untrusted_certificate_fails(tls_upstream, make_client):
    with pytest.raises(FetchError) as info:
        make_client(resolver=_to_loopback).for_check().get(tls_upstream.url("/", host="upstream.test"))
    message = str(info.value)
    assert message.startswith(tls_upstream.url("/", host="upstream.test") + ": the TLS connection failed (")
    assert "certificate verification failed" in message and "mark the project insecure" in message
    assert tls_upstream.seen == []


def test_insecure_skips_verification_silently(tls_upstream, make_client):
    http = make_client(resolver=_to_loopback).for_check(insecure=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        response = http.get(tls_upstream.url("/", host="upstream.test"))
    assert response.text == f"secret for upstream.test:{tls_upstream.port}"
    assert [w for w in caught if "Unverified" in str(w.message)] == []
    # the same client still verifies for the other projects
    with pytest.raises(FetchError, match="certificate verification failed"):
        make_client(resolver=_to_loopback).for_check().get(tls_upstream.url("/", host="upstream.test"))


def test_pinned_connection_checks_the_certificate_against_the_host_name(tls_upstream, make_client, certificates):
    client = make_client(resolver=_to_loopback, ca_certs=str(certificates.ca))
    response = client.for_check().get(tls_upstream.url("/", host="upstream.test"))
    assert response.text == f"secret for upstream.test:{tls_upstream.port}"
    assert tls_upstream.sni == ["upstream.test"]
    with pytest.raises(FetchError, match="Hostname mismatch"):
        client.for_check().get(tls_upstream.url("/", host="other.test"))


def test_a_slow_tls_handshake_ends_at_the_deadline(make_upstream, make_client):
    stalled = make_upstream()  # accepts the connection, never answers the TLS hello
    stalled.finish_request = lambda request, address: stalled.stopping.wait(10)  # type: ignore[method-assign]
    started = time.monotonic()
    with pytest.raises(FetchError, match="took longer than its deadline of 1 s"):
        make_client(timeout=5, deadline=1).for_check().get(f"https://127.0.0.1:{stalled.port}/")
    assert time.monotonic() - started < 2
