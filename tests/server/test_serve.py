"""`agentcli serve` driven by clients using only httpx and SSE: the token is required on every path (401),
two watchers of one session see the same events, and a permission answered by one is seen answered by both."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path
from typing import Any

import httpx

from tests.cli.helpers import git_repo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.server.conftest import TIMEOUT, Server


def watch(server: Server, sid: str, into: queue.Queue[dict[str, Any]], ready: threading.Event) -> None:
    """One SSE watcher (httpx alone): every `data:` line, as JSON, until the result line."""
    with server.client() as c, c.stream("GET", f"/v1/sessions/{sid}/events") as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith(":"):
                ready.set()
            if line.startswith("data: "):
                obj = json.loads(line[len("data: "):])
                into.put(obj)
                if obj["type"] == "result":
                    return


def until(q: queue.Queue[dict[str, Any]], pred: Any) -> list[dict[str, Any]]:
    seen = []
    while True:
        obj = q.get(timeout=TIMEOUT)
        seen.append(obj)
        if pred(obj):
            return seen


def test_token_two_watchers_and_a_shared_permission(server: Server, fake_llm: FakeLLM, tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    for token in ("wrong", "Bearer"):
        with server.client(token) as c:
            assert c.get("/v1/openapi.json").status_code == 401
            assert c.post("/v1/sessions", json={"cwd": str(proj)}).status_code == 401
    with httpx.Client(base_url=server.url) as bare:
        assert bare.get("/v1/sessions").status_code == 401

    with server.client() as c:
        assert c.get("/v1/openapi.json").json()["openapi"].startswith("3.")
        sid = c.post("/v1/sessions", json={"cwd": str(proj)}).json()["session_id"]
        queues: list[queue.Queue[dict[str, Any]]] = [queue.Queue(), queue.Queue()]
        readies = [threading.Event(), threading.Event()]
        threads = [threading.Thread(target=watch, args=(server, sid, q, r), daemon=True)
                   for q, r in zip(queues, readies, strict=True)]
        for t in threads:
            t.start()
        assert all(r.wait(TIMEOUT) for r in readies)

        target = proj / "made.txt"
        fake_llm.push(Reply(tool_calls=[ToolCall("Write", {"file_path": str(target), "content": "made\n"})]),
                      Reply(text="written"))
        assert c.post(f"/v1/sessions/{sid}/prompt", json={"prompt": "write it"}).status_code == 202
        asked = [until(q, lambda o: o["type"] == "control_request")[-1] for q in queues]
        assert asked[0] == asked[1] and asked[0]["request"]["tool_name"] == "Write"
        rid = asked[0]["request_id"]
        assert c.post(f"/v1/sessions/{sid}/permissions/{rid}", json={"behavior": "allow"}).status_code == 200
        assert c.post(f"/v1/sessions/{sid}/permissions/{rid}", json={"behavior": "deny"}).status_code == 409
        rest = [until(q, lambda o: o["type"] == "result") for q in queues]
        for seen in rest:
            assert any(o.get("subtype") == "permission_resolved" and o["request_id"] == rid for o in seen)
            assert seen[-1]["result"] == "written" and not seen[-1]["is_error"]
        assert [o["type"] for o in rest[0]] == [o["type"] for o in rest[1]]
        assert target.read_text() == "made\n"
        for t in threads:
            t.join(TIMEOUT)


def test_bad_requests_are_clear_refusals(server: Server, tmp_path: Path) -> None:
    with server.client() as c:
        bad = c.post("/v1/sessions", content=b"not json", headers={"Content-Type": "application/json"})
        assert bad.status_code == 400 and bad.json()["error"] == "usage"
        relative = c.post("/v1/sessions", json={"cwd": "some/dir"})
        assert relative.status_code == 400 and "absolute" in relative.json()["message"]
        unknown = c.post("/v1/sessions", json={"cwd": str(tmp_path), "resume": "no-such-session"})
        assert unknown.status_code == 400
        assert c.post("/v1/sessions/nope/prompt", json={"prompt": "x"}).status_code == 404
        assert c.get("/v1/sessions").json() == {"sessions": []}


def test_a_prompt_answered_with_its_event_stream_then_the_session_ends(server: Server, fake_llm: FakeLLM,
                                                                        tmp_path: Path) -> None:
    """`Accept: text/event-stream` on a prompt: its answer is this turn's lines up to the result; another
    watcher sees the same; `close` ends the session. And a session opened with its prompt (what `-p --attach`
    sends: one request)."""
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    sse = {"Accept": "text/event-stream"}
    with server.client() as c:
        sid = c.post("/v1/sessions", json={"cwd": str(proj)}).json()["session_id"]
        refused = c.post(f"/v1/sessions/{sid}/prompt", json={"prompt": "x", "close": True})
        assert refused.status_code == 400 and "text/event-stream" in refused.json()["message"]
        other: queue.Queue[dict[str, Any]] = queue.Queue()
        ready = threading.Event()
        watcher = threading.Thread(target=watch, args=(server, sid, other, ready), daemon=True)
        watcher.start()
        assert ready.wait(TIMEOUT)
        fake_llm.push(Reply(text="streamed back"))
        with c.stream("POST", f"/v1/sessions/{sid}/prompt", json={"prompt": "hi", "close": True},
                      headers=sse) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            mine = [json.loads(line[len("data: "):]) for line in response.iter_lines() if line.startswith("data: ")]
        assert mine[0]["type"] == "system" and mine[-1]["type"] == "result"
        assert mine[-1]["result"] == "streamed back" and mine[-1]["exit_status"] == 0
        theirs = until(other, lambda o: o["type"] == "result")
        assert [o["uuid"] for o in theirs] == [o["uuid"] for o in mine]
        watcher.join(TIMEOUT)
        assert c.get("/v1/sessions").json() == {"sessions": []}  # let go before the answer ended

    # `-p --attach` in one request: the session opened with its prompt, its one turn streamed, the session ended
    asked = {"cwd": str(proj), "prompt": "hi", "close": True}
    with server.client() as c:
        unstreamed = c.post("/v1/sessions", json=asked)
        assert unstreamed.status_code == 400 and "text/event-stream" in unstreamed.json()["message"]
        fake_llm.push(Reply(text="one request"))
        with c.stream("POST", "/v1/sessions", json=asked, headers=sse) as response:
            assert response.status_code == 200
            lines = [json.loads(line[len("data: "):]) for line in response.iter_lines() if line.startswith("data: ")]
        assert lines[0]["type"] == "system" and lines[-1]["result"] == "one request"
        assert c.get("/v1/sessions").json() == {"sessions": []}
