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
