"""httpcore imports trio whenever it is installed (~60–170 ms of CPU), although agentcli runs on asyncio:
`net/preload.ensure` imports it with a stand-in that loads trio at its first use (bench/RESULTS.md, perf3).
Each check runs in a fresh interpreter, where nothing of the stack is imported yet."""

from __future__ import annotations

import subprocess
import sys
import textwrap

ASYNCIO_RUN = textwrap.dedent("""
    import asyncio, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from agentcli.net import preload

    class Hello(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.send_header("content-length", "2"); self.end_headers()
            self.wfile.write(b"hi")
        def log_message(self, *a): pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    preload.ensure()
    import httpx

    async def get():
        async with httpx.AsyncClient(trust_env=False) as client:
            return (await client.get(url)).text

    print(asyncio.run(get()), "trio" in sys.modules, "attr" in sys.modules)
    if sys.argv[1:] == ["trio"]:
        import trio

        async def get_trio():
            async with httpx.AsyncClient(trust_env=False) as client:
                return (await client.get(url)).text

        print(trio.run(get_trio), type(sys.modules["trio"]).__name__)
""")


def run(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", ASYNCIO_RUN, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_request_on_asyncio_never_imports_trio() -> None:
    assert run() == ["hi", "False", "False"]


def test_httpcore_imported_by_agentcli_still_works_under_trio() -> None:
    """An embedding program that runs httpx on trio after agentcli imported httpcore gets the real trio."""
    assert run("trio") == ["hi", "False", "False", "hi", "module"]


IDNA_CERTIFI = textwrap.dedent("""
    import ssl, sys
    from agentcli.net import preload

    preload.ensure()
    import httpx

    httpx.Client(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)).close()  # a client as agentcli makes them
    before = ["idna" in sys.modules, "certifi.core" in sys.modules]
    host = httpx.URL("http://bücher.example/").raw_host.decode()  # httpx's idna, at its first use
    import certifi

    print(*before, host, type(sys.modules["idna"]).__name__, certifi.where().endswith(".pem"),
          "certifi.core" in sys.modules)
""")


def test_idna_and_certifi_load_only_when_used_and_then_work() -> None:
    """httpx imports idna (host names that are not ASCII) at its import, and certifi at its import and at each
    client's creation, for a trust store agentcli replaces with its own (net/tls.py); neither is loaded by the
    HTTP stack's import or a client as agentcli makes it, and both work at their first use. Fails loudly if
    httpx or httpcore stop reaching them as `idna.x` / `certifi.x`."""
    done = subprocess.run([sys.executable, "-c", IDNA_CERTIFI], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "xn--bcher-kva.example", "module", "True", "True"]
