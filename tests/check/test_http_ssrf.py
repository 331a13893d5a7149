"""The address guard of the HTTP layer: every known way to reach a refused address, each shown
refused AND shown not to have reached the fake upstream listening there."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from anitrack_core.check.http import transport
from anitrack_core.check.http import BlockedAddressError, FetchError

from .fakes import FakeUpstream, Handler

LOOPBACK_SPELLINGS = ["127.0.0.1", "localhost", "127.1", "2130706433", "0x7f000001", "0x7f.0.0.1",
                      "0177.0.0.1", "0.0.0.0"]
OTHER_REFUSED = ["10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "224.0.0.1",
                 "255.255.255.255", "[fd00:ec2::254]", "[fe80::1]", "[::]", "[64:ff9b::a9fe:a9fe]",
                 "[2002:7f00:1::1]", "[::ffff:10.0.0.1]", "[ff02::1]"]


@pytest.fixture
def opened(monkeypatch) -> list[tuple[str, int]]:
    """Every socket the HTTP layer opens, as (address, port)."""
    calls: list[tuple[str, int]] = []
    real = transport._open_socket

    def spy(address, port, *args):
        calls.append((str(address), port))
        return real(address, port, *args)

    monkeypatch.setattr(transport, "_open_socket", spy)
    return calls


def _hello(h: Handler) -> None:
    h.reply(200, f"hello {h.headers['Host']}")


def _assert_blocked(exc: pytest.ExceptionInfo[BlockedAddressError], address: str) -> None:
    message = str(exc.value)
    assert f"refused to connect to {address}" in message
    assert "ANITRACK_ALLOW_PRIVATE_UPSTREAMS=1" in message


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_loopback_spellings_are_refused_and_never_reach_the_upstream(upstream, make_client, opened, host):
    upstream.routes["/"] = _hello
    url = upstream.url("/", host=host)
    with pytest.raises(BlockedAddressError) as info:
        make_client(allow_private=False).for_check().get(url)
    assert str(info.value).startswith(url + ": ")
    _assert_blocked(info, "0.0.0.0" if host == "0.0.0.0" else "127.0.0.1")
    assert (upstream.connections, opened) == (0, [])
    # control: the same URL does reach the fake upstream when private upstreams are allowed
    assert make_client(allow_private=True).for_check().get(url).text == f"hello {host}:{upstream.port}"
    assert upstream.connections == 1


def test_ipv6_loopback_and_mapped_ipv4_are_refused(upstream, make_upstream, make_client, opened):
    try:
        upstream6: FakeUpstream | None = FakeUpstream("::1")
    except OSError:  # no IPv6 here: the refusal is still checked, the control is not
        upstream6 = None
    try:
        for url, address in [
            ((upstream6 or upstream).url("/", host="[::1]"), "::1"),
            (upstream.url("/", host="[::ffff:127.0.0.1]"), "::ffff:7f00:1"),
            (upstream.url("/", host="[::127.0.0.1]"), "::7f00:1"),
        ]:
            with pytest.raises(BlockedAddressError) as info:
                make_client(allow_private=False).for_check().get(url)
            _assert_blocked(info, address)
        assert opened == [] and upstream.connections == 0
        if upstream6 is not None:
            upstream6.routes["/"] = _hello
            assert make_client().for_check().get(upstream6.url("/")).ok
            assert upstream6.connections == 1
    finally:
        if upstream6 is not None:
            upstream6.stop()


@pytest.mark.parametrize("host", OTHER_REFUSED)
def test_private_link_local_metadata_and_special_addresses_are_refused(make_client, opened, host):
    with pytest.raises(BlockedAddressError) as info:
        make_client(allow_private=False, timeout=0.5).for_check().get(f"http://{host}/latest/meta-data/")
    _assert_blocked(info, str(ipaddress.ip_address(host.strip("[]"))))
    assert opened == []


def test_metadata_address_is_named_as_such(make_client):
    with pytest.raises(BlockedAddressError, match="cloud metadata service"):
        make_client(allow_private=False).for_check().get("http://169.254.169.254/")


def test_a_name_resolving_to_loopback_is_refused(upstream, make_client, opened):
    asked: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["127.0.0.1"]

    with pytest.raises(BlockedAddressError, match=r"refused to connect to 127.0.0.1 \(the address of evil.test\)"):
        make_client(allow_private=False, resolver=resolver).for_check().get(upstream.url("/", host="evil.test"))
    assert asked == ["evil.test"]
    assert (upstream.connections, opened) == (0, [])


def test_an_answer_with_one_refused_address_is_refused_whole(make_client, opened):
    resolver = {"mixed.test": ["93.184.215.14", "10.0.0.7"]}
    with pytest.raises(BlockedAddressError, match="10.0.0.7"):
        make_client(allow_private=False, resolver=lambda h, p: resolver[h]).for_check().get("http://mixed.test/")
    assert opened == []


def test_a_redirect_to_a_refused_address_is_refused(make_upstream, make_client):
    public, internal = make_upstream("127.0.0.1"), make_upstream("127.0.0.2")
    internal.routes["/secret"] = _hello
    public.routes["/"] = lambda h: h.reply(302, headers={"Location": internal.url("/secret")})

    def only_public(address):
        return None if address == ipaddress.ip_address("127.0.0.1") else "not public in this test"

    http = make_client(allow_private=False, address_check=only_public).for_check()
    with pytest.raises(BlockedAddressError) as info:
        http.get(public.url("/"))
    assert str(info.value).startswith(f"{internal.url('/secret')} (redirected from {public.url('/')}): ")
    assert "not public in this test" in str(info.value)
    assert (public.connections, internal.connections) == (1, 0)
    assert http.requests_made == 2


def test_a_redirect_to_another_scheme_is_refused(upstream, make_client, opened):
    upstream.routes["/"] = lambda h: h.reply(302, headers={"Location": "file:///etc/passwd"})
    with pytest.raises(FetchError, match=r"^file:///etc/passwd \(redirected from .*\): only http:// and https://"):
        make_client().for_check().get(upstream.url("/"))
    assert len(opened) == 1


def test_dns_rebinding_cannot_move_a_connection(make_upstream, make_client):
    good, bad = make_upstream("127.0.0.1"), make_upstream("127.0.0.2")
    good.routes["/"] = lambda h: h.reply(200, f"good {h.headers['Host']}", {"Connection": "close"})
    bad.routes["/"] = _hello
    answers = iter([["127.0.0.1"], ["127.0.0.2"], ["127.0.0.2"]])
    asked: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        asked.append(host)
        return next(answers)

    only_good = lambda address: None if str(address) == "127.0.0.1" else "refused in this test"  # noqa: E731
    client = make_client(allow_private=False, resolver=rebinding, address_check=only_good)
    url = f"http://rebind.test:{good.port}/"
    # resolved once, checked, and the connection goes to the checked address (the name is not resolved again)
    assert client.for_check().get(url).text == f"good rebind.test:{good.port}"
    assert asked == ["rebind.test"]
    # the next connection resolves anew: the rebound answer is checked and refused
    with pytest.raises(BlockedAddressError, match="127.0.0.2"):
        client.for_check().get(f"http://rebind.test:{bad.port}/")
    assert bad.connections == 0


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://ftp.example.org/pub/", "gopher://127.0.0.1:70/",
                                 "dict://127.0.0.1:11211/stat", "javascript:alert(1)", "//example.org/x",
                                 "example.org/releases", "http:///path-without-host", "http://host:99999/"])
def test_only_http_and_https_urls_are_fetched(make_client, opened, url):
    with pytest.raises(FetchError) as info:
        make_client().for_check().get(url)
    assert not isinstance(info.value, BlockedAddressError)
    assert str(info.value).startswith(url + ": ")
    assert opened == []


def test_private_upstreams_allowed_refuses_nothing(upstream, make_client):
    upstream.routes["/"] = _hello
    http = make_client(allow_private=True, resolver=lambda h, p: ["127.0.0.1"]).for_check()
    assert http.get(upstream.url("/", host="internal.corp")).ok


def test_system_resolver_answers_are_checked_too(make_client, monkeypatch):
    def fake_getaddrinfo(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.0.10", port))]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(BlockedAddressError, match=r"192.168.0.10 \(the address of intranet.example\)"):
        make_client(allow_private=False).for_check().get("http://intranet.example/")


def test_the_next_checked_address_is_tried_when_one_fails(upstream, make_client, opened):
    upstream.routes["/"] = _hello
    # nothing listens on 127.0.0.3 (the fake upstream is bound to 127.0.0.1 only): refused, then the next
    http = make_client(resolver=lambda host, port: ["127.0.0.3", "127.0.0.1"]).for_check()
    assert http.get(upstream.url("/", host="two.test")).text == f"hello two.test:{upstream.port}"
    assert [address for address, _ in opened] == ["127.0.0.3", "127.0.0.1"]
