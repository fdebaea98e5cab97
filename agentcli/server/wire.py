"""The thin `--attach` client's HTTP: one HTTP/1.0 request per connection, over the standard library's `socket`.

Why not httpx (the project's HTTP client everywhere else), nor `http.client`: the whole attached `-p` run has
~45 ms (0.2× Codex CLI's cold `-p hello`, issue 30), and importing the client alone costs, in instructions
(callgrind, over `python -c pass`'s 39 M): httpx +507 M, `http.client` +132 M (it imports `email`'s parser and
`ssl` whatever the URL), `socket` with `json` and `urllib.parse` +59 M (bench/RESULTS.md, "attach").

HTTP/1.0 keeps this small and exact: the server closes the connection after each answer, so a body is
what arrives until then (or its Content-Length), never chunked; the event stream is read line by line until
the close. A kept-alive connection is never reused, so a POST is never sent twice. Everything read is bounded.
"""

from __future__ import annotations

import socket

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: see agentcli/__init__.py
if TYPE_CHECKING:
    from typing import Any, BinaryIO

CONNECT_TIMEOUT = 30.0  # connecting, and each answer but the event stream's (a turn may think for long)
MAX_BODY = 16 << 20  # an answer to a request (the event stream is read line by line)
MAX_LINE = 1 << 16  # a status or header line
MAX_HEADERS = 100


class WireError(Exception):
    """The server could not be reached, or what it sent is not an HTTP answer."""


class Exchange:
    """One request and its answer: `status`, then `body()` or `stream.readline`."""

    def __init__(self, host: str, port: int | None, tls: bool, method: str, target: str,
                 headers: dict[str, str], body: bytes | None = None) -> None:
        port = port or (443 if tls else 80)
        # an ASCII name as bytes: a str goes through the idna codec, whose import costs ~3 ms of ~30
        address: Any = host.encode() if host.isascii() else host  # getaddrinfo takes either
        try:
            sock = socket.create_connection((address, port), timeout=CONNECT_TIMEOUT)
        except OSError as err:
            raise WireError(str(err) or type(err).__name__) from None
        stream: BinaryIO | None = None
        try:
            if tls:  # the one trust store (SSL_CERT_FILE / SSL_CERT_DIR, else the system's); http:// loads none
                from agentcli.net.tls import trust_context

                sock = trust_context().wrap_socket(sock, server_hostname=host)
            shown = f"[{host}]" if ":" in host else host
            lines = [f"{method} {target} HTTP/1.0", f"Host: {shown}:{port}", *(f"{k}: {v}" for k, v in
                                                                               headers.items())]
            if body is not None:
                lines.append(f"Content-Length: {len(body)}")
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
            stream = sock.makefile("rb")
            self.sock, self.stream = sock, stream
            self.status, self.length = self._head()
        except BaseException as err:
            if stream is not None:
                stream.close()
            sock.close()
            if isinstance(err, OSError):
                raise WireError(str(err) or type(err).__name__) from None
            raise

    def _head(self) -> tuple[int, int | None]:
        parts = self.stream.readline(MAX_LINE).split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
            raise WireError("the answer is not HTTP")
        length = None
        for _ in range(MAX_HEADERS):
            line = self.stream.readline(MAX_LINE)
            if line in (b"\r\n", b"\n", b""):
                return int(parts[1]), length
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                if not value.strip().isdigit():
                    raise WireError("the answer's Content-Length is not a number")
                length = int(value)
        raise WireError(f"the answer has over {MAX_HEADERS} header lines")

    def body(self) -> bytes:
        """The whole answer (then the connection is closed)."""
        try:
            data = self.stream.read(MAX_BODY + 1 if self.length is None else min(self.length, MAX_BODY + 1))
        except OSError as err:
            raise WireError(str(err) or type(err).__name__) from None
        finally:
            self.close()
        if len(data) > MAX_BODY:
            raise WireError(f"the answer is over {MAX_BODY >> 20} MiB")
        return data

    def wait_forever(self) -> None:
        """No time limit on reads from now on (the event stream)."""
        self.sock.settimeout(None)

    def close(self) -> None:
        self.stream.close()
        self.sock.close()
