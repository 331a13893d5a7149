"""The address policy, the parsing of numeric hosts and the checked resolution."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from anitrack_core.check.http.guard import (
    AddressGuard,
    AddressRefused,
    UnresolvableHost,
    UnsupportedURL,
    check_url,
    parse_address,
    refusal_reason,
    system_resolver,
)

ip = ipaddress.ip_address


@pytest.mark.parametrize("host, expected", [
    ("127.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"), ("2130706433", "127.0.0.1"),
    ("0x7f000001", "127.0.0.1"), ("0x7F.0.0.1", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
    ("0177.1", "127.0.0.1"), ("10.0x10.1", "10.16.0.1"), ("1.65536", "1.1.0.0"), ("0", "0.0.0.0"),
    ("[::1]", "::1"), ("::ffff:127.0.0.1", "::ffff:7f00:1"), ("[fe80::1%eth0]", "fe80::1%eth0"),
])
def test_numeric_hosts_in_every_spelling(host, expected):
    assert parse_address(host) == ip(expected)


@pytest.mark.parametrize("host", ["example.org", "localhost", "1.2.3.4.5", "08.1.1.1", "0x", "256.1.1.1",
                                  "1.2.3.256", "4294967296", "0xg", "", "127.0.0.1.nip.io"])
def test_names_are_not_addresses(host):
    assert parse_address(host) is None


@pytest.mark.parametrize("address, fragment", [
    ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("::1", "loopback"),
    ("10.0.0.1", "private network"), ("172.16.5.4", "private network"), ("172.31.255.255", "private network"),
    ("192.168.0.1", "private network"), ("fd12:3456::1", "unique local"),
    ("169.254.1.1", "link-local"), ("fe80::1", "link-local"),
    ("169.254.169.254", "cloud metadata"), ("fd00:ec2::254", "cloud metadata"),
    ("100.100.100.200", "cloud metadata"), ("192.0.0.192", "cloud metadata"),
    ("100.64.0.1", "carrier-grade NAT"), ("100.127.255.254", "carrier-grade NAT"),
    ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("ff02::1", "multicast"),
    ("ff0e::1", "multicast"), ("255.255.255.255", "broadcast"), ("240.0.0.1", "reserved"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"),
    ("192.0.2.1", "documentation"), ("198.51.100.1", "documentation"), ("2001:db8::1", "documentation"),
    ("198.18.0.1", "benchmarking"),
    ("::ffff:127.0.0.1", "IPv4-mapped IPv6 address of 127.0.0.1, which is a loopback"),
    ("::ffff:169.254.169.254", "IPv4-mapped IPv6 address of 169.254.169.254, which is a cloud metadata"),
    ("::127.0.0.1", "IPv4-compatible"), ("::8.8.8.8", "IPv4-compatible"),
    ("64:ff9b::7f00:1", "NAT64 IPv6 address of 127.0.0.1"), ("64:ff9b::a00:1", "NAT64 IPv6 address of 10.0.0.1"),
    ("64:ff9b:1::1", "local-use NAT64"),
    ("2002:7f00:1::1", "6to4 IPv6 address of 127.0.0.1"), ("2002:a9fe:a9fe::", "6to4 IPv6 address of 169.254"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"), ("::ffff:0:7f00:1", "IPv4-translated"),
])
def test_refused_addresses(address, fragment):
    reason = refusal_reason(ip(address))
    assert reason is not None and fragment in reason


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.215.14", "1.1.1.1", "2606:4700:4700::1111",
                                     "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808",
                                     "2002:808:808::1"])
def test_public_addresses_are_allowed(address):
    assert refusal_reason(ip(address)) is None


@pytest.mark.parametrize("url", ["http://example.org/", "HTTPS://Example.org:8443/x?y#z", " https://a.b/ "])
def test_check_url_accepts_http_and_https(url):
    assert check_url(url).hostname


@pytest.mark.parametrize("url, message", [
    ("file:///etc/passwd", "'file:' URL"), ("ftp://example.org/", "'ftp:' URL"),
    ("gopher://example.org/", "'gopher:' URL"), ("example.org/x", "no scheme"),
    ("http://", "no host name"), ("http://example.org:0x50/", "not a valid URL"),
])
def test_check_url_refuses_the_rest(url, message):
    with pytest.raises(UnsupportedURL, match=message):
        check_url(url)


def _never(host: str, port: int) -> list[str]:
    raise AssertionError(f"the resolver was asked about {host}")


def test_numeric_hosts_are_not_resolved():
    guard = AddressGuard(allow_private=False, resolver=_never)
    assert guard.resolve("8.8.8.8", 80) == [ip("8.8.8.8")]
    with pytest.raises(AddressRefused) as info:
        guard.resolve("0x7f000001", 80)
    assert (info.value.host, info.value.address) == ("0x7f000001", "127.0.0.1")


def test_every_address_of_an_answer_is_checked():
    guard = AddressGuard(resolver=lambda host, port: ["8.8.8.8", "2606:4700::1", "192.168.1.1"])
    with pytest.raises(AddressRefused, match="192.168.1.1: it is a private network address"):
        guard.resolve("mixed.test", 443)


def test_resolution_failures():
    with pytest.raises(UnresolvableHost, match="no address found"):
        AddressGuard(resolver=lambda host, port: []).resolve("empty.test", 80)
    with pytest.raises(UnresolvableHost, match="not an address"):
        AddressGuard(resolver=lambda host, port: ["example.org"]).resolve("weird.test", 80)


def test_allow_private_and_custom_checks():
    loopback = lambda host, port: ["127.0.0.1", "::1"]  # noqa: E731
    assert AddressGuard(allow_private=True, resolver=loopback).resolve("local.test", 80) == [ip("127.0.0.1"),
                                                                                             ip("::1")]
    picky = AddressGuard(resolver=lambda h, p: ["8.8.8.8"], check=lambda a: "no Google in this test")
    with pytest.raises(AddressRefused, match="no Google in this test"):
        picky.resolve("dns.test", 53)


def test_system_resolver(monkeypatch):
    assert "127.0.0.1" in system_resolver("localhost", 80) or "::1" in system_resolver("localhost", 80)

    def failing(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", failing)
    with pytest.raises(UnresolvableHost, match="Name or service not known"):
        system_resolver("nowhere.test", 80)
