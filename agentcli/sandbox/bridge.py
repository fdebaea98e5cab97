"""Runs inside the sandbox as its first process when a host allowlist is set: listens on 127.0.0.1:PORT (the
sandbox's own loopback) and carries each connection to agentcli's proxy over the Unix socket bound in, while the
command runs; exits with the command's status. Standard library only, started with `python -I -S` (fast start)."""

import contextlib
import os
import socket
import subprocess
import sys
import threading


def pipe(src: socket.socket, dst: socket.socket) -> None:
    """Copy `src` to `dst` until `src` ends, then end `dst`'s sending side (the allowlist proxy uses it too)."""
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            continue
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


def main() -> int:
    path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[4:]
    listener = socket.create_server(("127.0.0.1", port))
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    proc = subprocess.Popen(argv, close_fds=False)
    code = proc.wait()
    sys.stdout.flush()
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    sys.exit(main())
