"""Which proxy a request goes through: `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY`, minus `NO_PROXY`.

httpx reads these variables itself, but its `NO_PROXY` has no CIDR ranges (`10.0.0.0/8` only matches the
address 10.0.0.0) and it would also read `.netrc`; so agentcli decides here, once, and hands httpx the answer.
`NO_PROXY` entries, comma- or space-separated: `*`; a host name, which also covers its subdomains (`example.com`,
`.example.com`, `*.example.com`); an IP address; a CIDR range (`10.0.0.0/8`, `fd00::/8`); any of those with
`:port`. Loopback targets never use a proxy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

from agentcli.net.addr import is_loopback

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def proxy_for(url: str, env: Mapping[str, str]) -> str | None:
    """The proxy URL to use for `url`, from the usual environment variables, or None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or is_loopback(host):
        return None
    scheme = parts.scheme.lower()
    names = ("HTTPS_PROXY", "https_proxy") if scheme == "https" else ("HTTP_PROXY", "http_proxy")
    proxy = next((env[n].strip() for n in (*names, "ALL_PROXY", "all_proxy") if env.get(n, "").strip()), None)
    if not proxy:
        return None
    if "://" not in proxy:
        proxy = "http://" + proxy  # what curl assumes for `HTTPS_PROXY=host:3128`
    port = parts.port or (443 if scheme == "https" else 80)
    no_proxy = env.get("NO_PROXY") or env.get("no_proxy") or ""
    for entry in no_proxy.replace(" ", ",").split(","):
        if entry.strip() and _bypasses(entry.strip().lower(), host, port):
            return None
    return proxy


def _bypasses(entry: str, host: str, port: int) -> bool:
    """Whether one `NO_PROXY` entry covers `host:port`."""
    if entry == "*":
        return True
    ehost, eport = _split_port(entry)
    if eport is not None and eport != port:
        return False
    net = _network(ehost)
    if net is not None:
        addr = _address(host)
        return addr is not None and addr.version == net.version and addr in net
    name = ehost.lstrip("*").lstrip(".").rstrip(".")
    return bool(name) and (host.rstrip(".") == name or host.rstrip(".").endswith("." + name))


def _split_port(entry: str) -> tuple[str, int | None]:
    if entry.startswith("["):  # [::1]:8080
        inside, _, rest = entry[1:].partition("]")
        return inside, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    if entry.count(":") == 1:
        name, _, port = entry.partition(":")
        return (name, int(port)) if port.isdigit() else (entry, None)
    return entry, None


def _network(text: str) -> Network | None:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
