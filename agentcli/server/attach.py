"""`agentcli -p … --attach URL` and the REPL with `--attach`: a thin client of `agentcli serve`. The warm server
runs the turn; this imports nothing of the agent (tests/server/test_attach.py holds it to that).

`agentcli/__main__.py` hands an argv naming `--attach` to `main` before anything else is imported: an argv
made only of the flags a thin client reads is run here (`read_argv`); any other (a flag the server's settings
override, a mistake, `--help`) goes the usual way, through the flag table and typer (agentcli.cli.entry).

HTTP: one HTTP/1.0 request per connection over `socket` (agentcli.server.wire says why not httpx, with the
figures).

The token: `--token`, else $AGENTCLI_SERVER_TOKEN, else (a loopback URL only: the same machine and user) the
server's token file in agentcli's home, never anything from the project."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from urllib.parse import quote, urlsplit

from agentcli.cli.given import given_cwd, read_prompt
from agentcli.errors import AgentCliError, UsageError
from agentcli.net.addr import is_loopback
from agentcli.server.token import ENV, read_token, token_path
from agentcli.server.wire import Exchange, WireError

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: see agentcli/__init__.py
if TYPE_CHECKING:
    from typing import Any
    from urllib.parse import SplitResult

    Line = dict[str, Any]

OUTPUT_FORMATS = ("text", "json", "stream-json")


class Unreachable(Exception):
    """The server could not be reached, or broke the exchange off (exit 1, code server_unreachable)."""


def find_token(url: str, given: str | None) -> str:
    if given:
        return given
    if os.environ.get(ENV):
        return os.environ[ENV]
    if not is_loopback(split_url(url).hostname or ""):
        raise UsageError(f"--attach {url}: no token for a server on another machine",
                         hint=f"pass --token TOKEN or set {ENV}")
    try:
        return read_token()
    except FileNotFoundError:
        raise UsageError(f"no server token in {token_path()}", hint="start `agentcli serve` first, or pass "
                                                                    "--token") from None
    except PermissionError as err:
        raise UsageError(str(err), hint="fix the file's mode, or pass --token") from None


def split_url(url: str) -> SplitResult:
    """The server's URL, checked: http:// or https://, a host, a valid port."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a port out of range or not a number raises here)
    except ValueError as err:
        raise UsageError(f"--attach {url}: {err}", hint="--attach http://127.0.0.1:PORT") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--attach {url}: not an http:// or https:// URL", hint="--attach http://127.0.0.1:PORT")
    return parts


class Attached:
    """One session on the server."""

    def __init__(self, url: str, token: str) -> None:
        parts = split_url(url)
        self.host, self.port, self.tls = parts.hostname or "", parts.port, parts.scheme == "https"
        self.prefix = parts.path.rstrip("/")
        if not (token.isascii() and token.isprintable()):
            raise UsageError("the token holds characters an HTTP header cannot carry",
                             hint="pass the token `agentcli serve` printed")
        self.auth = {"Authorization": f"Bearer {token}"}
        self.sid = ""
        self.ended = False  # the server ended the session itself (a turn sent with `close`)

    @property
    def at(self) -> str:
        """The session's path (its id as one path segment, whatever the server sent)."""
        return f"/v1/sessions/{quote(self.sid, safe='')}"

    def _exchange(self, method: str, path: str, body: Line | None = None, accept: str = "application/json") \
            -> Exchange:
        headers = {**self.auth, "Accept": accept}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            return Exchange(self.host, self.port, self.tls, method, self.prefix + path, headers, data)
        except WireError as err:
            raise Unreachable(str(err)) from None

    def _send(self, method: str, path: str, body: Line | None = None) -> Line:
        exchange = self._exchange(method, path, body)
        try:
            return _checked(exchange.status, exchange.body())
        except WireError as err:
            raise Unreachable(str(err)) from None

    def open(self, cwd: str, resume: str | None) -> None:
        sid = self._send("POST", "/v1/sessions", {"cwd": cwd, "resume": resume}).get("session_id")
        if not isinstance(sid, str) or not sid:
            raise Unreachable("the server's answer names no session")
        self.sid = sid

    def turn(self, prompt: str, answer: Callable[[Line], Line], close: bool = False) -> Iterator[Line]:
        """The turn's stream-json lines, the result last; permission questions go to `answer`. One request: the
        prompt's answer is the turn's event stream (`close`: the server then ends the session itself)."""
        return self._stream(f"{self.at}/prompt", {"prompt": prompt, "close": close}, answer)

    def run(self, cwd: str, resume: str | None, prompt: str, answer: Callable[[Line], Line]) -> Iterator[Line]:
        """`-p`: the session opened with its prompt, its one turn streamed back, and ended by the server, all in
        one request."""
        return self._stream("/v1/sessions", {"cwd": cwd, "resume": resume, "prompt": prompt, "close": True},
                            answer)

    def _stream(self, path: str, body: Line, answer: Callable[[Line], Line]) -> Iterator[Line]:
        exchange = self._exchange("POST", path, body, accept="text/event-stream")
        try:
            if exchange.status != 200:
                _checked(exchange.status, exchange.body())
                raise Unreachable(f"the prompt was answered with {exchange.status}, not its event stream")
            exchange.wait_forever()
            for data in events(exchange.stream.readline):
                line: Line = json.loads(data)
                if not isinstance(line, dict):
                    raise ValueError(data)
                if not self.sid and isinstance(line.get("session_id"), str):
                    self.sid = line["session_id"]  # from the first line (`run`): a Ctrl-C can still end it
                if line.get("type") == "control_request":
                    self._send("POST", f"{self.at}/permissions/{quote(str(line.get('request_id')), safe='')}",
                               answer(line))
                yield line
                if line.get("type") == "result":
                    self.ended = bool(body.get("close"))
                    return
        except (OSError, WireError) as err:
            raise Unreachable(str(err) or type(err).__name__) from None
        except ValueError:
            raise Unreachable("the server sent an event that is not a JSON object") from None
        finally:
            exchange.close()
        raise Unreachable("the server ended the event stream before the turn's result")

    def close(self) -> None:
        """End the session, unless the server ended it after the last turn (or none was opened)."""
        if self.sid and not self.ended:
            exchange = self._exchange("DELETE", self.at)
            try:
                body = exchange.body()
            except WireError as err:
                raise Unreachable(str(err)) from None
            if exchange.status != 404:  # 404: the server ended it already (a `close` turn the reader left)
                _checked(exchange.status, body)


def events(readline: Callable[[], bytes]) -> Iterator[str]:
    """The data of each Server-Sent Event, read line by line until the stream ends: `data` fields (one space
    after the colon dropped) joined by newlines, dispatched at a blank line; comments and other fields skipped.
    Not agentcli.net.sse's decoder, which imports typing (~6 ms here): `agentcli serve` ends its lines with LF
    (CRLF is read too; a bare CR, which the spec also allows, is not); tests/server/test_attach_argv.py holds
    the two to the same events."""
    data: list[str] = []
    while raw := readline():
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not text:
            if data:
                yield "\n".join(data)
                data = []
            continue
        name, _, value = text.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)


def _checked(status: int, body: bytes) -> Line:
    if status == 401:
        raise UsageError("the server refused the token (401)", hint="pass the token `agentcli serve` printed")
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    if status >= 400:
        raise UsageError(f"the server said: {data.get('message', status)}")
    return data


def deny(line: Line) -> Line:
    """`-p`: nobody can answer, so a question is a denial (as without --attach)."""
    return {"behavior": "deny", "message": "Permission was not granted (non-interactive run). Do not retry it."}


def run_attached(url: str, token: str | None, prompt: str | None, cwd: str, resume: str | None,
                 output_format: str) -> int:
    """`-p` (a prompt) or a plain line REPL (none) on the server. Returns the exit status."""
    split_url(url)  # a bad URL is said before a missing token
    client = Attached(url, find_token(url, token))
    try:
        try:
            if prompt is not None:  # one request; the server ends the session with the turn
                return _print_turn(client.run(cwd, resume, prompt, deny), output_format)
            client.open(cwd, resume)
            return _repl(client)
        finally:
            client.close()
    except Unreachable as err:
        sys.stderr.write(f"agentcli: --attach {url}: {err} [server_unreachable]\n")
        return 1


def told(line: Line, agents: dict[str, str]) -> str | None:
    """A warning `notice` line as `-p` text says it on stderr (`agentcli: …`; a subagent's `agentcli (subagent
    NAME): …`), else None. `agents`: each Task call's id → its subagent type, learned here from the assistant lines,
    since a notice names only its Task call."""
    if line.get("type") == "assistant":
        for block in (line.get("message") or {}).get("content") or ():
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                agents[str(block.get("id"))] = str(block["input"].get("subagent_type") or block.get("name"))
        return None
    if line.get("type") != "system" or line.get("subtype") != "notice" or line.get("level") != "warning":
        return None
    parent = line.get("parent_tool_use_id")
    who = f"agentcli (subagent {agents.get(str(parent), 'Task')})" if parent else "agentcli"
    text = f"{who}: {line.get('text')}\n"
    if sys.stderr.isatty():  # the server's text must not drive the terminal
        from agentcli.visible import inert

        text = inert(text)
    return text


def _print_turn(lines: Iterator[Line], output_format: str) -> int:
    status = 1
    agents: dict[str, str] = {}
    for line in lines:
        if output_format == "stream-json":
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()
        elif output_format == "text" and (said := told(line, agents)):
            sys.stderr.write(said)
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
    agents: dict[str, str] = {}  # (a background subagent's notice may come in a later turn)
    while True:
        try:
            prompt = input("> ")
        except EOFError:
            return 0
        if prompt.strip():
            for line in client.turn(prompt, _ask):
                if said := told(line, agents):
                    sys.stderr.write(said)
                for block in (line.get("message") or {}).get("content", []) if line.get("type") == "assistant" \
                        else []:
                    if block.get("type") == "text":
                        sys.stdout.write(block["text"] + "\n")


# ---- the command line ---------------------------------------------------------------------------------------

ATTACH_FLAGS = frozenset({"attach", "token", "print_mode", "prompt", "cwd", "resume", "output_format"})
_VALUED = {"--attach": "attach", "--token": "token", "--cwd": "cwd", "--output-format": "output_format"}


def read_argv(argv: list[str]) -> dict[str, Any] | None:
    """The values of an argv made only of the thin client's flags (`-p/--print`, `--attach`, `--token`,
    `--cwd`, `-r/--resume ID`, `--output-format`, and with `-p` at most one prompt), exactly as the flag
    table's reader gives them (tests/server/test_attach_argv.py holds the two together); None for anything
    else, which then takes the usual way and its words for every error."""
    values: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        name, eq, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        if name in ("-p", "--print") and not eq:
            values["print_mode"] = True
        elif name in _VALUED:
            if not eq:
                if i >= len(argv):
                    return None
                attached, i = argv[i], i + 1
            if name == "--output-format" and attached not in OUTPUT_FORMATS:  # each value is checked
                return None
            values[_VALUED[name]] = attached
        elif name in ("-r", "--resume"):
            if not eq:  # a value only when the next word is not an option; one that starts with "-" is left
                # to the table's reader, which knows every option
                if i < len(argv) and argv[i].startswith("-"):
                    return None
                attached, i = (argv[i], i + 1) if i < len(argv) else ("", i)
            values["resume"] = attached
        elif word.startswith("-") or "prompt" in values:
            return None
        else:
            values["prompt"] = word
    if not values.get("attach") or ("prompt" in values and not values.get("print_mode")):
        return None
    return values


def run_values(values: dict[str, Any]) -> int:
    """Run the attached `-p` or REPL for parsed root values (the flags outside ATTACH_FLAGS already reported)."""
    resume = values.get("resume")
    if resume is not None and not (isinstance(resume, str) and resume):
        raise UsageError("--attach with -r needs a session id", hint="agentcli -r SESSION_ID --attach URL")
    prompt = read_prompt(values.get("prompt")) if values.get("print_mode") else None
    return run_attached(values["attach"], values.get("token"), prompt, given_cwd(values.get("cwd")), resume,
                        values.get("output_format") or "text")


def main(argv: list[str]) -> int | None:
    """The whole attached run for an argv `read_argv` takes (None: not one), its errors worded as
    agentcli.cli.entry words them."""
    values = read_argv(argv)
    if values is None:
        return None
    import signal

    # Ctrl-C (SIGINT) stops the attached run with 130 however agentcli was started: Python leaves a SIGINT that was
    # ignored at start ignored (`agentcli … &` in a script, some runners), and the client then sat out the whole
    # turn and exited with its status, where `-p` without --attach stops on it (the driver's handlers). Put back
    # after the run (an in-process caller keeps its own).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return run_values(values)
    except AgentCliError as err:
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    except KeyboardInterrupt:  # the session was closed on the way out, which stops its turn on the server
        sys.stderr.write("agentcli: interrupted\n")
        return 130
    except BrokenPipeError:  # `| head -1` left early: quietly, with the status of the usual path
        return 141
    finally:
        signal.signal(signal.SIGINT, previous)
