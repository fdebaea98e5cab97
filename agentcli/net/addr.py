"""Is a URL on this machine? Decided by parsing the address, never by how its text begins.

`127.0.0.2`, `[::1]`, `[::ffff:127.0.0.1]` and `localhost` are loopback; `127.evil.com` is a name anyone can
point anywhere, so it is remote (it needs its API key and goes through the configured proxy). Other spellings
that resolvers accept for loopback (`127.1`, `2130706433`, `foo.localhost`) count as remote too: the safe side,
since remote only means "ask for a key, use the proxy, retry".
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback(host: str) -> bool:
    """True for a loopback IP literal (any of 127.0.0.0/8, ::1, IPv4-mapped forms) or `localhost`."""
    h = host.strip().lower()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if h in ("localhost", "localhost."):
        return True
    try:
        ip = ipaddress.ip_address(h.split("%", 1)[0])  # an IPv6 zone (`::1%lo`) is not part of the address
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def is_loopback_url(url: str | None) -> bool:
    """True for a URL on this machine (a local model server)."""
    if not url:
        return False
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return is_loopback(host or "")


_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_IETF_V4 = ipaddress.IPv4Network("192.0.0.0/24")  # protocol assignments; 192.0.0.192 is a cloud metadata service


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for, when a translation reaches it: mapped (`::ffff:a.b.c.d`),
    compatible (`::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`), NAT64 (`64:ff9b::a.b.c.d`), Teredo (the server's)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[0]
    packed = ip.packed
    if packed[:12] == bytes(12) and packed[12:] not in (bytes(4), b"\0\0\0\1"):
        return ipaddress.IPv4Address(packed[12:])
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(packed[12:])
    return None


def is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A globally reachable address, judged by the IPv4 address behind an IPv6 translation form as well: the
    cloud metadata service at 169.254.169.254 is as private written `64:ff9b::a9fe:a9fe` or `2002:a9fe:a9fe::`."""
    if isinstance(ip, ipaddress.IPv6Address):
        v4 = embedded_ipv4(ip)
        if v4 is not None:
            return is_public(v4) and ip.is_global
        return ip.is_global
    return ip.is_global and ip not in _IETF_V4
