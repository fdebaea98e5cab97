"""The host allowlist: an HTTP proxy in agentcli that lets sandboxed commands reach only the hosts in
`sandbox_allowed_hosts`.

The sandbox has no network of its own (a fresh network namespace). The proxy listens on a Unix socket in a
private directory; the socket is bound into the sandbox, where `bridge.py` (the sandbox's first process) offers it
on 127.0.0.1 and points `HTTP(S)_PROXY` at it. Programs that ignore the proxy variables have no network at all.
Threads, not asyncio: the proxy serves commands started from synchronous code too (`agentcli sandbox run`).

What a hostile command can send it is decided by h11, a strict HTTP/1.1 implementation, on both sides:

- one request per connection (`Connection: close` on every answer): nothing is pipelined past the check;
- the request head is parsed by h11 (bad request lines, bad or duplicate Host, conflicting Content-Length,
  any Transfer-Encoding but chunked, heads over 64 KiB are refused); Content-Length together with
  Transfer-Encoding is refused too, and a plain-HTTP body is re-framed by h11 toward the server, never copied;
- the target is `CONNECT host:port` (HTTPS) or an absolute `http://` URL, and a Host header, when sent, must
  name the same host and port;
- the host is normalised before the allowlist is asked (lower case, one trailing dot, IPv6 in brackets,
  only canonical dotted-quad IPv4: `127.1`, `0x7f.1` and `2130706433` are refused), and the proxy connects to
  exactly the address it checked;
- a name allowed only through a `*.domain` entry never reaches a loopback, link-local (cloud metadata),
  unspecified or multicast address (nor one of those behind an IPv6 translation prefix: NAT64, 6to4, Teredo);
  an entry that names the host exactly (or the address itself) may;
- what a client can hold is bounded: the request head must arrive whole within `HEAD_TIMEOUT_S` (a client
  trickling a byte at a time is answered 408), a request body that stalls for `IDLE_TIMEOUT_S` ends the
  exchange, and at most `MAX_CONNECTIONS` connections are served at once (more get 503 at once), so a sandboxed
  command cannot pile up agentcli's threads.
"""

from __future__ import annotations

import atexit
import contextlib
import ipaddress
import os
import shutil
import socket
import socketserver
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import h11

from agentcli.sandbox.bridge import pipe

MAX_HEAD = 65536
CONNECT_TIMEOUT_S = 30.0
HEAD_TIMEOUT_S = 30.0  # the whole request head, however it is trickled
IDLE_TIMEOUT_S = 60.0  # a request body's silence before the exchange is given up
MAX_CONNECTIONS = 256  # served at once (a tunnel holds two threads for as long as it is open)
_HOP_BY_HOP = {b"connection", b"proxy-connection", b"keep-alive", b"proxy-authorization", b"proxy-authenticate",
               b"te", b"trailer", b"transfer-encoding", b"upgrade", b"expect", b"content-length", b"host"}
_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


class Refused(Exception):
    """A request the proxy will not carry: `status` and the one-line reason the client gets."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def normalise_host(raw: str) -> str | None:
    """The canonical form of a host as a client sent it, or None when it is not a plain DNS name or IP literal:
    `[v6]` becomes its compressed address, names lose one trailing dot and their case."""
    if raw.startswith("[") and raw.endswith("]"):
        if "%" in raw:  # a zone id names an interface of this machine
            return None
        try:
            return str(ipaddress.IPv6Address(raw[1:-1]))
        except ValueError:
            return None
    name = raw.lower()
    name = name[:-1] if name.endswith(".") else name
    labels = name.split(".")
    if not name or len(name) > 253 or any(not _is_label(label) for label in labels):
        return None
    if labels[-1].isdigit() or labels[-1].startswith("0x"):
        # Digits where a top-level domain belongs: only a canonical dotted quad, never the forms the resolver
        # would also read as an address (127.1, 0x7f.1, 2130706433, 0177.0.0.1).
        try:
            return str(ipaddress.IPv4Address(name))
        except ValueError:
            return None
    return name


def _is_label(label: str) -> bool:
    return 0 < len(label) <= 63 and set(label) <= _LABEL_CHARS and not label.startswith("-") \
        and not label.endswith("-")


def normalise_entry(entry: str) -> str | None:
    """An allowlist entry in the form `normalise_host` gives (`*.` kept); Unicode names become their IDNA 2008
    A-labels, as clients send them. None for an entry that can match nothing."""
    entry = entry.strip()
    wild = entry.startswith("*.")
    body = entry[2:] if wild else entry
    if ":" in body and not body.startswith("["):
        body = f"[{body}]"
    if not body.isascii():
        import idna

        try:
            body = idna.encode(body.rstrip("."), uts46=True).decode("ascii")
        except idna.IDNAError:
            return None
    host = normalise_host(body)
    if host is None or (wild and _is_ip(host)):
        return None
    return f"*.{host}" if wild else host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def match(host: str, allowed: tuple[str, ...]) -> str | None:
    """How the normalised `host` is allowed: `exact`, `wildcard` (a `*.domain` entry, subdomains only), or None."""
    entries = [e for e in (normalise_entry(a) for a in allowed) if e is not None]
    if host in entries:
        return "exact"
    if not _is_ip(host) and any(e.startswith("*.") and host.endswith(e[1:]) for e in entries):
        return "wildcard"
    return None


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """Whether a host as a client wrote it is allowed (normalised first; anything malformed is not)."""
    norm = normalise_host(host if not (":" in host and not host.startswith("[")) else f"[{host}]")
    return norm is not None and match(norm, allowed) is not None


def parse_authority(text: str, default_port: int | None) -> tuple[str, int] | None:
    """(normalised host, port) from `host[:port]` / `[v6][:port]`; None when malformed."""
    if text.startswith("["):
        close = text.find("]")
        host, rest = text[: close + 1], text[close + 1:]
        if close < 0 or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else None
    else:
        host, sep, port_text_ = text.partition(":")
        port_text = port_text_ if sep else None
    if port_text is None:
        port = default_port
    elif port_text.isascii() and port_text.isdigit() and len(port_text) <= 5:
        port = int(port_text)
    else:
        return None
    norm = normalise_host(host)
    if norm is None or port is None or not 0 < port < 65536:
        return None
    return norm, port


@dataclass(frozen=True, slots=True)
class Target:
    """Where a request goes: `path` is the origin-form target for plain HTTP, empty for CONNECT."""

    method: str
    host: str
    port: int
    path: str = ""

    @property
    def connect(self) -> bool:
        return self.method == "CONNECT"


def target_of(request: h11.Request) -> Target:
    """The checked target of a parsed request; `Refused` (400) when it is not a proxy request we understand."""
    try:
        method, raw = request.method.decode("ascii"), request.target.decode("ascii")
    except UnicodeDecodeError:
        raise Refused(400, "the request target is not ASCII") from None
    hosts = [v.decode("latin-1") for k, v in request.headers if k == b"host"]
    if method == "CONNECT":
        found = parse_authority(raw, None)
        path = ""
        if _framed_body(request):
            raise Refused(400, "a CONNECT request has no body")
    else:
        scheme, sep, rest = raw.partition("://")
        if not sep or scheme.lower() != "http":
            raise Refused(400, "only CONNECT and absolute http:// URLs are proxied")
        end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
        authority, path = rest[:end], rest[end:].split("#", 1)[0]
        if "@" in authority:
            raise Refused(400, "credentials in a proxied URL")
        found = parse_authority(authority, 80)
        path = path if path.startswith("/") else "/" + path
    if found is None:
        raise Refused(400, f"not a host and port: {raw[:200]}")
    host, port = found
    if hosts and parse_authority(hosts[0], port if method == "CONNECT" else 80) != found:
        raise Refused(400, "the Host header names another host than the request target")
    return Target(method, host, port, path)


def _framed_body(request: h11.Request) -> bool:
    names = {k for k, _ in request.headers}
    return b"transfer-encoding" in names or any(k == b"content-length" and v != b"0" for k, v in request.headers)


def resolve(target: Target, how: str) -> list[tuple[int, str]]:
    """The (family, address) pairs to try; a name allowed only by a wildcard never gets an internal address."""
    try:
        literal = ipaddress.ip_address(target.host)
    except ValueError:
        literal = None
    if literal is not None:
        return [(socket.AF_INET6 if literal.version == 6 else socket.AF_INET, str(literal))]
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except OSError as err:
        raise Refused(502, f"cannot resolve {target.host}: {err.strerror or err}") from None
    found = list(dict.fromkeys((int(fam), str(addr[0])) for fam, _, _, _, addr in infos))
    if how == "wildcard":
        found = [(fam, a) for fam, a in found if not _internal(a)]
        if not found:
            raise Refused(403, f"{target.host} resolves to an internal address; name it exactly in "
                               "sandbox_allowed_hosts to allow it")
    return found


def _internal(address: str) -> bool:
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        from agentcli.net.addr import embedded_ipv4

        # Teredo names two IPv4 hosts (its server and the client behind it): either internal is refused.
        if ip.teredo is not None and any(_internal(str(v4)) for v4 in ip.teredo):
            return True
        # ::ffff:127.0.0.1 is the loopback too, and so are its 6to4, NAT64 and compatible spellings
        ip = embedded_ipv4(ip) or ip
    return ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast or ip.is_reserved


def open_upstream(target: Target, allowed: tuple[str, ...]) -> socket.socket:
    """A connection to `target` if the allowlist lets it through; `Refused` (403 or 502) otherwise."""
    how = match(target.host, allowed)
    if how is None:
        raise Refused(403, f"agentcli sandbox: {target.host} is not in sandbox_allowed_hosts")
    last: OSError | None = None
    for family, address in resolve(target, how):
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.connect((address, target.port))
            sock.settimeout(None)
            return sock
        except OSError as err:
            sock.close()
            last = err
    raise Refused(502, f"cannot connect to {target.host}:{target.port}: {last.strerror if last else ''}")


def serve(client: socket.socket, allowed: tuple[str, ...], head_timeout_s: float = HEAD_TIMEOUT_S) -> None:
    """Carry one request from `client` (a tunnel for CONNECT), or answer why not; the connection then closes."""
    import time

    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    try:
        request = _next(conn, client, limit=MAX_HEAD, deadline=time.monotonic() + head_timeout_s)
        if not isinstance(request, h11.Request):
            return
        names = [k for k, _ in request.headers]
        if b"transfer-encoding" in names and b"content-length" in names:
            raise Refused(400, "both Content-Length and Transfer-Encoding")
        target = target_of(request)
        upstream = open_upstream(target, allowed)
    except Refused as refused:
        _refuse(client, conn, refused)
        return
    client.settimeout(None if target.connect else IDLE_TIMEOUT_S)
    with upstream:
        if target.connect:
            _tunnel(client, conn, upstream)
        else:
            _forward(client, conn, upstream, request, target)


def _next(conn: h11.Connection, sock: socket.socket, limit: int | None = None,
          deadline: float | None = None) -> object:
    """The next h11 event, reading from `sock` as needed; a protocol violation is `Refused` with h11's status,
    more than `limit` bytes read for it is `Refused` (431), and not having it by `deadline` (monotonic) too (408).
    """
    import time

    read = 0
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as err:
            raise Refused(err.error_status_hint, f"malformed HTTP: {err}") from None
        if event is not h11.NEED_DATA:
            return event
        if limit is not None and read > limit:  # the recv below reads at most one byte past the limit
            raise Refused(431, "the request head is too large")
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Refused(408, "the request head did not arrive in time")
            sock.settimeout(left)
        try:
            data = sock.recv(65536 if limit is None else min(65536, limit + 1 - read))
        except TimeoutError:
            if deadline is not None:
                continue  # the deadline's check answers 408
            data = b""
        except OSError:
            data = b""
        read += len(data)
        conn.receive_data(data)


def _refuse(client: socket.socket, conn: h11.Connection, refused: Refused, linger_s: float = 1.0) -> None:
    from http import HTTPStatus

    if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
        return
    body = (refused.reason + "\n").encode("utf-8", "replace")
    try:
        phrase = HTTPStatus(refused.status).phrase.encode("ascii")
    except ValueError:
        phrase = b""
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    with contextlib.suppress(OSError, h11.LocalProtocolError):
        client.sendall(conn.send(h11.Response(status_code=refused.status, reason=phrase, headers=headers))
                       + (conn.send(h11.Data(data=body)) or b"") + (conn.send(h11.EndOfMessage()) or b""))
        # A lingering close: unread input at close would reset the connection before the client reads the answer.
        client.shutdown(socket.SHUT_WR)
        if linger_s <= 0:  # on the accepting thread: never wait for the client there
            return
        client.settimeout(linger_s)
        drained = 0
        while drained < (1 << 20) and (chunk := client.recv(65536)):
            drained += len(chunk)


def _tunnel(client: socket.socket, conn: h11.Connection, upstream: socket.socket) -> None:
    client.sendall(conn.send(h11.Response(status_code=200, reason=b"Connection established", headers=[])) or b"")
    early, _ = conn.trailing_data  # what the client sent after the head, before our answer (a TLS hello)
    if early:
        upstream.sendall(early)
    back = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
    back.start()
    pipe(client, upstream)
    back.join()


def _forward(client: socket.socket, conn: h11.Connection, upstream: socket.socket, request: h11.Request,
             target: Target) -> None:
    """A plain-HTTP request re-serialised by h11 toward the server, its response re-serialised toward the client."""
    up = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
    host = f"[{target.host}]" if ":" in target.host else target.host
    headers = [(b"host", f"{host}:{target.port}".encode() if target.port != 80 else host.encode()),
               *_end_to_end(request.headers), *_framing(request.headers), (b"connection", b"close")]
    try:
        upstream.sendall(up.send(h11.Request(method=request.method, target=target.path.encode("ascii"),
                                             headers=headers)) or b"")
        if conn.they_are_waiting_for_100_continue:
            client.sendall(conn.send(h11.InformationalResponse(status_code=100, headers=[])) or b"")
        while isinstance(event := _next(conn, client), h11.Data):
            upstream.sendall(up.send(h11.Data(data=event.data)) or b"")
        upstream.sendall(up.send(h11.EndOfMessage()) or b"")
        response = _next(up, upstream)
        while isinstance(response, h11.InformationalResponse):
            response = _next(up, upstream)
        if not isinstance(response, h11.Response):
            raise Refused(502, "the server closed the connection without an answer")
    except Refused as refused:
        _refuse(client, conn, refused)
        return
    except (OSError, h11.LocalProtocolError):
        return
    with contextlib.suppress(OSError, Refused, h11.LocalProtocolError):
        answer = [*_end_to_end(response.headers), *_framing(response.headers), (b"connection", b"close")]
        client.sendall(conn.send(h11.Response(status_code=response.status_code, reason=response.reason,
                                              headers=answer)) or b"")
        while isinstance(event := _next(up, upstream), h11.Data):
            client.sendall(conn.send(h11.Data(data=event.data)) or b"")
        client.sendall(conn.send(h11.EndOfMessage()) or b"")


def _end_to_end(headers: Sequence[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The headers a proxy passes on: not the hop-by-hop ones, nor those `Connection` names, nor framing."""
    named = {t.strip().lower() for k, v in headers if k == b"connection" for t in v.split(b",")}
    return [(k, v) for k, v in headers if k not in _HOP_BY_HOP and k not in named]


def _framing(headers: Sequence[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The framing h11 read the body with, to frame the re-sent body the same way: chunked whenever
    Transfer-Encoding is present (it beats Content-Length, RFC 9112 6.3), else the Content-Length."""
    if any(k == b"transfer-encoding" for k, _ in headers):
        return [(b"transfer-encoding", b"chunked")]
    return [(k, v) for k, v in headers if k == b"content-length"][:1]


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        serve(self.request, self.server.allowed, self.server.head_timeout_s)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allowed: tuple[str, ...] = ()
    head_timeout_s = HEAD_TIMEOUT_S
    slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        """A thread per connection while there are slots; past them, 503 on the spot (no thread)."""
        if not self.slots.acquire(blocking=False):
            _refuse(request, h11.Connection(h11.SERVER), Refused(503, "agentcli sandbox: too many connections "
                                                                      "to the proxy at once"), linger_s=0.0)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class HostProxy:
    """A running allowlist proxy; `socket_path` is what the sandbox binds in. `close()` stops it. The bounds
    (`head_timeout_s`, `max_connections`) are the module's unless a test asks for smaller ones."""

    def __init__(self, allowed: tuple[str, ...], *, head_timeout_s: float = HEAD_TIMEOUT_S,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        _remove_stale()
        self.dir = tempfile.mkdtemp(prefix=f"agentcli-proxy-{os.getpid()}-")
        self.socket_path = os.path.join(self.dir, "proxy.sock")
        self.server = _Server(self.socket_path, _Handler)
        self.server.allowed = allowed
        self.server.head_timeout_s = head_timeout_s
        self.server.slots = threading.BoundedSemaphore(max_connections)
        # A short poll: `close()` (at the end of every run that used the proxy) waits for the loop to notice.
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

        atexit.register(self.close)

    def close(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
            self.server.server_close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _remove_stale() -> None:
    """Directories of proxies whose agentcli ended without cleaning up (`os._exit`, SIGKILL)."""
    base = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            parts = name.split("-")
            stale = len(parts) >= 4 and parts[2].isdigit() and not os.path.exists(f"/proc/{parts[2]}")
            if name.startswith("agentcli-proxy-") and stale:
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
