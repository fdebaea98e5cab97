"""The HTTP stack is imported by one thread at a time (agentcli/net/preload.py `ensure`): httpx, httpcore and
anyio import each other, and two threads importing them together can be handed each other's half-built module.
Each check runs in a fresh interpreter, where nothing of the stack is imported yet."""

from __future__ import annotations

import subprocess
import sys
import textwrap

WAITS = textwrap.dedent("""
    import sys, threading
    from agentcli.net import preload

    preload._lock.acquire()  # as if another thread were half-way through importing the stack
    entered = threading.Event()
    def second():
        entered.set()
        preload.ensure()
    t = threading.Thread(target=second)
    t.start()
    entered.wait()
    t.join(0.5)  # (a bound on a wrong answer, not synchronisation: the right answer is "still waiting")
    print("waiting" if t.is_alive() else "did not wait", "httpx" in sys.modules)
    preload._lock.release()
    t.join()
    import httpcore
    print(preload._ready, hasattr(httpcore, "AsyncConnectionPool"))
""")

EVERY_IMPORTER = textwrap.dedent("""
    import asyncio, threading
    from agentcli.net import preload
    from agentcli.mcp.manager import _import_connection

    preload.start(tls=False)
    box = []
    t = threading.Thread(target=lambda: box.append(_import_connection()))
    t.start()
    preload.ensure()
    import httpcore, httpx
    t.join()
    print(hasattr(httpcore, "AsyncConnectionPool"), hasattr(httpx, "AsyncClient"), box[0].__name__)
""")


def run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_second_importer_waits_for_the_first_instead_of_importing_beside_it() -> None:
    assert run(WAITS) == ["waiting", "False", "True", "True"]


def test_the_preload_mcp_and_first_request_importers_meet_at_the_gate() -> None:
    assert run(EVERY_IMPORTER) == ["True", "True", "agentcli.mcp.connection"]
