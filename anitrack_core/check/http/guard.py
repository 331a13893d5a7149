"""Which network addresses an upstream may be: the SSRF address policy.

Project URLs are user-supplied, so a check must not become a way to reach the
machine anitrack runs on, its private network or a cloud metadata service.
The rule: an address is acceptable only when it is globally routable and
unicast.  IPv6 forms that carry an IPv4 address (IPv4-mapped, NAT64, 6to4) are
judged by the IPv4 address they carry.  The ranges are listed explicitly as
well as checked with :attr:`ipaddress.IPv4Address.is_global`, because older
Python releases consider some special-purpose ranges global.

This module only decides and resolves; :mod:`anitrack_core.check.http.transport`
applies the decision to every connection it opens, and connects to the very
address that was checked (so a DNS answer that changes between the check and
the connection cannot redirect it).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import SplitResult, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: ``resolver(host, port)`` returns the addresses (strings) *host* resolves to
Resolver = Callable[[str, int], Sequence[str]]
#: ``check(address)`` returns why the address is refused, or None to allow it
AddressCheck = Callable[[IPAddress], str | None]

ALLOWED_SCHEMES = ("http", "https")

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean...
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
    )
)

# (network, what it is), first match wins; from the IANA special-purpose registries.
_REFUSED_NETWORKS: tuple[tuple[_V4 | _V6, str], ...] = (
    (_V4("0.0.0.0/8"), "the unspecified ('this host') range"),
    (_V4("10.0.0.0/8"), "a private network address (RFC 1918)"),
    (_V4("100.64.0.0/10"), "a shared address (carrier-grade NAT, RFC 6598)"),
    (_V4("127.0.0.0/8"), "a loopback address"),
    (_V4("169.254.0.0/16"), "a link-local address"),
    (_V4("172.16.0.0/12"), "a private network address (RFC 1918)"),
    (_V4("192.0.0.0/24"), "an IETF protocol assignment (not routable)"),
    (_V4("192.0.2.0/24"), "a documentation address"),
    (_V4("192.88.99.0/24"), "a deprecated 6to4 relay address"),
    (_V4("192.168.0.0/16"), "a private network address (RFC 1918)"),
    (_V4("198.18.0.0/15"), "a benchmarking address"),
    (_V4("198.51.100.0/24"), "a documentation address"),
    (_V4("203.0.113.0/24"), "a documentation address"),
    (_V4("224.0.0.0/4"), "a multicast address"),
    (_V4("255.255.255.255/32"), "the broadcast address"),
    (_V4("240.0.0.0/4"), "a reserved address"),
    (_V6("::/128"), "the unspecified address"),
    (_V6("::1/128"), "the loopback address"),
    (_V6("::/96"), "a deprecated IPv4-compatible IPv6 address"),
    (_V6("::ffff:0:0:0/96"), "an IPv4-translated IPv6 address"),
    (_V6("64:ff9b:1::/48"), "a local-use NAT64 address"),
    (_V6("100::/64"), "a discard-only address"),
    (_V6("2001::/23"), "an IETF protocol assignment (Teredo, benchmarking...)"),
    (_V6("2001:db8::/32"), "a documentation address"),
    (_V6("3fff::/20"), "a documentation address"),
    (_V6("5f00::/16"), "a segment-routing address"),
    (_V6("fc00::/7"), "a unique local (private) address"),
    (_V6("fe80::/10"), "a link-local address"),
    (_V6("fec0::/10"), "a deprecated site-local address"),
    (_V6("ff00::/8"), "a multicast address"),
)

_NAT64 = _V6("64:ff9b::/96")
_LEGACY_V4_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$")


class UnsupportedURL(ValueError):
    """The URL is not an absolute http:// or https:// URL with a host."""


class AddressRefused(Exception):
    """A host resolved to an address the policy refuses."""

    def __init__(self, host: str, address: str, reason: str) -> None:
        super().__init__(f"{host} -> {address}: {reason}")
        self.host = host
        self.address = address
        self.reason = reason


class UnresolvableHost(Exception):
    """A host name has no address (or resolution failed)."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"{host}: {reason}")
        self.host = host
        self.reason = reason


def check_url(url: str) -> SplitResult:
    """Parse *url*, refusing anything but an absolute http(s) URL with a host.

    :raises UnsupportedURL: with a message for users.
    """
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise UnsupportedURL(f"not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"this one is a '{scheme}:' URL" if scheme else "this one has no scheme"
        raise UnsupportedURL(f"only http:// and https:// URLs can be fetched ({shown})")
    if not parts.hostname:
        raise UnsupportedURL("the URL has no host name")
    return parts


def parse_address(host: str) -> IPAddress | None:
    """The address *host* spells, or None when it is a name.

    Besides the standard forms this accepts what the C library's ``inet_aton``
    accepts, which a resolver would turn into an address anyway: ``127.1``,
    ``2130706433`` (decimal), ``0x7f000001`` / ``0x7f.0.0.1`` (hex) and
    ``0177.0.0.1`` (octal).
    """
    text = host.strip("[]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_LEGACY_V4_PART.match(p) for p in parts):
        return None
    values = [int(p, 0) if not p.startswith("0") or p[:2].lower() == "0x" else int(p, 8) for p in parts]
    if any(v > 255 for v in values[:-1]) or values[-1] >= 256 ** (5 - len(parts)):
        return None
    number = 0
    for value in values[:-1]:
        number = number << 8 | value
    number = number << 8 * (5 - len(parts)) | values[-1]
    return ipaddress.IPv4Address(number)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, str] | None:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), with the form's name."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped, "an IPv4-mapped IPv6 address"
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "a NAT64 IPv6 address"
    if address.sixtofour is not None:
        return address.sixtofour, "a 6to4 IPv6 address"
    return None


def refusal_reason(address: IPAddress) -> str | None:
    """Why an upstream may not be at *address*, or None if it may.

    The default :data:`AddressCheck`.
    """
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        address = ipaddress.IPv6Address(str(address).split("%")[0])
    if address in METADATA_ADDRESSES:
        return "it is a cloud metadata service address"
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner, form = embedded
            reason = refusal_reason(inner)
            return f"it is {form} of {inner}, which {reason.removeprefix('it ')}" if reason else None
    for network, what in _REFUSED_NETWORKS:
        if address.version == network.version and address in network:
            return f"it is {what}"
    if not address.is_global or address.is_multicast:
        return "it is not a public (globally routable) unicast address"
    return None


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve *host* with the operating system (``getaddrinfo``)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnresolvableHost(host, getattr(exc, "strerror", None) or str(exc)) from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class AddressGuard:
    """Resolves hosts and refuses the addresses the policy does not allow.

    :param allow_private: allow every address (tests, private deployments).
    :param resolver: how names are resolved (default: the operating system).
    :param check: the address policy (default: :func:`refusal_reason`).
    """

    allow_private: bool = False
    resolver: Resolver = field(default=system_resolver)
    check: AddressCheck = field(default=refusal_reason)

    def resolve(self, host: str, port: int) -> list[IPAddress]:
        """The addresses to connect to for *host*, every one of them checked.

        A numeric host is used as it is, without asking the resolver.  When
        any address of the answer is refused, the whole answer is refused.

        :raises AddressRefused: an address is not allowed.
        :raises UnresolvableHost: the name has no usable address.
        """
        literal = parse_address(host)
        if literal is not None:
            addresses: list[IPAddress] = [literal]
        else:
            try:
                answer = list(self.resolver(host, port))
            except (OSError, UnicodeError) as exc:  # a custom resolver's own failure
                raise UnresolvableHost(host, getattr(exc, "strerror", None) or str(exc)) from None
            addresses = []
            for text in answer:
                parsed = parse_address(str(text))
                if parsed is None:
                    raise UnresolvableHost(host, f"the resolver returned {text!r}, which is not an address")
                addresses.append(parsed)
            if not addresses:
                raise UnresolvableHost(host, "no address found")
        if not self.allow_private:
            for address in addresses:
                reason = self.check(address)
                if reason:
                    raise AddressRefused(host, str(address), reason)
        return addresses

