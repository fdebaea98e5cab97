"""`agentcli -p … --attach URL` and the REPL with `--attach`: a thin client of `agentcli serve`. The warm server
runs the turn; this imports httpx and nothing of the agent (tests/server/test_attach.py holds it to that).

The token: `--token`, else $AGENTCLI_SERVER_TOKEN, else (a loopback URL only: the same machine and user) the
server's token file in agentcli's home, never anything from the project."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from agentcli.errors import UsageError
from agentcli.server.token import ENV, read_token, token_file

Line = dict[str, Any]
TIMEOUT = httpx.Timeout(30.0, read=None)  # a turn may think for long between events


def find_token(url: str, given: str | None) -> str:
    if given:
        return given
    if os.environ.get(ENV):
        return os.environ[ENV]
    host = urlsplit(url).hostname or ""
    from agentcli.server.run import is_loopback

    if not is_loopback(host):
        raise UsageError(f"--attach {url}: no token for a server on another machine",
                         hint=f"pass --token TOKEN or set {ENV}")
    try:
        return read_token()
    except FileNotFoundError:
        raise UsageError(f"no server token in {token_file()}", hint="start `agentcli serve` first, or pass "
                                                                     "--token") from None
    except PermissionError as err:
        raise UsageError(str(err), hint="fix the file's mode, or pass --token") from None


class Attached:
    """One session on the server."""

    def __init__(self, url: str, token: str) -> None:
        # a plain http:// URL (loopback, the usual case) uses no TLS: skip loading the CA bundle (~40 ms)
        tls = url.lower().startswith("https://")
        self.http = httpx.Client(base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {token}"},
                                 timeout=TIMEOUT, verify=tls, follow_redirects=False)
        self.sid = ""

    def _check(self, response: httpx.Response) -> Line:
        if response.status_code == 401:
            raise UsageError("the server refused the token (401)", hint="pass the token `agentcli serve` printed")
        data: Line = response.json() if response.content else {}
        if response.status_code >= 400:
            raise UsageError(f"the server said: {data.get('message', response.status_code)}")
        return data

    def open(self, cwd: str, resume: str | None) -> None:
        self.sid = self._check(self.http.post("/v1/sessions", json={"cwd": cwd, "resume": resume}))["session_id"]

    def turn(self, prompt: str, answer: Callable[[Line], Line]) -> Iterator[Line]:
        """The turn's stream-json lines, the result last; permission questions go to `answer`."""
        with self.http.stream("GET", f"/v1/sessions/{self.sid}/events") as response:
            if response.status_code != 200:
                self._check(response)
            lines = response.iter_lines()
            next(lines)  # ": watching": the watcher is registered, the prompt's events cannot be missed
            self._check(self.http.post(f"/v1/sessions/{self.sid}/prompt", json={"prompt": prompt}))
            for raw in lines:
                if not raw.startswith("data: "):
                    continue
                line: Line = json.loads(raw[len("data: "):])
                if line.get("type") == "control_request":
                    self.http.post(f"/v1/sessions/{self.sid}/permissions/{line['request_id']}", json=answer(line))
                yield line
                if line.get("type") == "result":
                    return

    def close(self) -> None:
        if self.sid:
            self.http.delete(f"/v1/sessions/{self.sid}")
        self.http.close()


def deny(line: Line) -> Line:
    """`-p`: nobody can answer, so a question is a denial (as without --attach)."""
    return {"behavior": "deny", "message": "Permission was not granted (non-interactive run). Do not retry it."}


def run_attached(url: str, token: str | None, prompt: str | None, cwd: str, resume: str | None,
                 output_format: str) -> int:
    """`-p` (a prompt) or a plain line REPL (none) on the server. Returns the exit status."""
    client = Attached(url, find_token(url, token))
    try:
        client.open(cwd, resume)
        if prompt is not None:
            return _print_turn(client, prompt, output_format, deny)
        return _repl(client)
    except httpx.HTTPError as err:
        sys.stderr.write(f"agentcli: --attach {url}: {err} [server_unreachable]\n")
        return 1
    finally:
        client.close()


def _print_turn(client: Attached, prompt: str, output_format: str, answer: Callable[[Line], Line]) -> int:
    status = 1
    for line in client.turn(prompt, answer):
        if output_format == "stream-json":
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()
        if line.get("type") == "result":
            status = int(line.get("exit_status", 1 if line.get("is_error") else 0))
            if output_format == "json":
                sys.stdout.write(json.dumps(line) + "\n")
            elif output_format == "text":
                out = sys.stderr if line.get("is_error") else sys.stdout
                out.write(str(line.get("result") or (line.get("error") or {}).get("message", "")) + "\n")
    return status


def _ask(line: Line) -> Line:
    request = line["request"]
    shown = json.dumps(request.get("input"), ensure_ascii=False)[:400]
    answer = input(f"Allow {request.get('tool_name')} {shown}? [y/N] ").strip().lower()
    return {"behavior": "allow"} if answer in ("y", "yes") else {"behavior": "deny"}


def _repl(client: Attached) -> int:
    sys.stdout.write(f"attached: session {client.sid} (Ctrl-D to leave; the session stays resumable)\n")
    while True:
        try:
            prompt = input("> ")
        except EOFError:
            return 0
        if prompt.strip():
            for line in client.turn(prompt, _ask):
                for block in (line.get("message") or {}).get("content", []) if line.get("type") == "assistant" \
                        else []:
                    if block.get("type") == "text":
                        sys.stdout.write(block["text"] + "\n")
