"""The sandbox seen from outside: the real `agentcli -p` against the fake LLM server, real bubblewrap, real
processes. Acceptance points 2, 3, 5 and 6 of issue 9."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.fakes.serving import serve_in_thread

BYPASS = ["--permission-mode", "bypassPermissions", "--sandbox", "workspace-write", "--model", ANTHROPIC]


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the project and outside /tmp (which the sandbox replaces): a refused write there is
    the kernel's EROFS, not a missing path."""
    path = Path(tempfile.mkdtemp(prefix="agentcli-outside-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _bash(command: str, **extra: object) -> ToolCall:
    return ToolCall("Bash", {"command": command, **extra})


def test_writes_outside_the_project_fail_and_leave_nothing(tmp_path: Path, fake_llm: FakeLLM, outside: Path) -> None:
    proj = git_repo(tmp_path / "proj", {
        "Makefile": f"out:\n\ttouch {outside}/make\nin:\n\ttouch made-by-make\n",
        "script.sh": f"#!/bin/sh\necho x > {outside}/script\n",
    })
    (proj / "script.sh").chmod(0o755)
    os.mkfifo(proj / "bg-done")
    attacks = [
        f"touch {outside}/touch",
        f"python3 -c 'open(\"{outside}/python\", \"w\").write(\"x\")'",
        f"cp Makefile {outside}/cp",
        "./script.sh",
        "make out",
        f"ln -s {outside}/via-link link && echo x > link",
        f"mkdir -p {outside}/dir/sub",
    ]
    inside = ["touch inside.txt", "python3 -c 'open(\"py.txt\", \"w\").write(\"x\")'", "make in",
              "ln -s inside.txt ok-link && echo y >> ok-link"]
    fake_llm.push(
        Reply(tool_calls=[_bash(c) for c in attacks + inside]),
        Reply(tool_calls=[_bash(f"echo x > {outside}/background; touch bg-ran; echo bg-finished > bg-done",
                                run_in_background=True)]),
        Reply(tool_calls=[_bash("timeout 60 cat bg-done")]),  # a FIFO: waits for the background shell's line
        Reply(text="done"),
    )
    run = agentcli(["-p", "go", *BYPASS, "--output-format", "json"], proj, provider_env(fake_llm, ANTHROPIC))
    result = run.json()
    assert sorted(os.listdir(outside)) == [], run.stderr
    for name in ("inside.txt", "py.txt", "made-by-make", "bg-ran"):
        assert (proj / name).exists(), name
    assert (proj / "inside.txt").read_text() == "y\n"
    assert "bg-finished" in json.dumps(fake_llm.requests[-1].body["messages"][-1])
    denied = {d["tool_input"]["command"] for d in result["permission_denials"]}
    assert {f"touch {outside}/touch", "make out", "./script.sh"} <= denied
    assert not denied & set(inside)
    assert run.status == 3


class _Listener:
    """A TCP server on the host's loopback that counts the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.sendall(b"hello\n")
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("network", [False, True])
def test_network_is_off_unless_the_setting_allows_it(
    tmp_path: Path, fake_llm: FakeLLM, network: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if network:
        home = Path(os.environ["AGENTCLI_HOME"])
        (home / "config.toml").write_text("sandbox_network = true\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    server = _Listener()
    try:
        probe = (f"python3 -c 'import socket; s = socket.create_connection((\"127.0.0.1\", {server.port}), 3); "
                 "print(s.recv(10).decode().strip())'")
        fake_llm.push(Reply(tool_calls=[_bash(probe)]), Reply(text="done"))
        run = agentcli(["-p", "go", *BYPASS, "--output-format", "json"], proj, provider_env(fake_llm, ANTHROPIC))
    finally:
        server.close()
    tool_result = json.dumps(fake_llm.requests[1].body["messages"][-1])
    if network:
        assert server.accepted == 1 and "hello" in tool_result, run.stderr
        assert run.json()["permission_denials"] == []
    else:
        assert server.accepted == 0 and "Connection refused" in tool_result, run.stderr
        assert [d["tool_input"]["command"] for d in run.json()["permission_denials"]] == [probe]


PLANTED = "sk-ant-api03-PLANTED" + uuid.uuid4().hex


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_a_provider_key_reaches_no_command_output_session_or_model(
    tmp_path: Path, fake_llm: FakeLLM, fmt: str
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    home = Path(os.environ["AGENTCLI_HOME"])
    other = "cfg-" + uuid.uuid4().hex
    (home / "config.toml").write_text(f'[providers.openai]\napi_key = "{other}"\n')
    reader = "for p in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $p; done 2>/dev/null | grep -c PLANTED"
    fake_llm.push(
        Reply(tool_calls=[_bash("printenv"), _bash("printenv ANTHROPIC_API_KEY | rev; env | grep -i key | rev"),
                          _bash(reader), _bash(f"cat {home}/config.toml | rev"),
                          _bash("echo $ANTHROPIC_API_KEY | rev", run_in_background=True)]),
        Reply(tool_calls=[ToolCall("BashOutput", {"bash_id": "bash_1"})]),
        Reply(text="done"),
    )
    env = {**provider_env(fake_llm, ANTHROPIC), "ANTHROPIC_API_KEY": PLANTED, "MY_SERVICE_TOKEN_SECRET": other}
    run = agentcli(["-p", "go", "--permission-mode", "bypassPermissions", "--model", ANTHROPIC,
                    "--output-format", fmt], proj, env)
    # Reading agentcli's own config is the one command the sandbox stopped.
    assert run.status == 3, run.stderr
    bodies = json.dumps([r.body for r in fake_llm.requests])
    sessions = "".join(p.read_text(errors="replace") for p in home.rglob("*") if p.is_file()
                       and p.name != "config.toml")
    for secret in (PLANTED, other):
        for text in (secret, secret[::-1]):
            assert text not in run.stdout and text not in bodies and text not in sessions
    printed = json.dumps(fake_llm.requests[1].body["messages"][-1])
    assert "ANTHROPIC_API_KEY" not in printed.split("printenv ANTHROPIC_API_KEY")[-1].split("rev")[0]
    assert "PATH=" in printed  # printenv ran and printed the rest of the environment


class _Http:
    """An HTTP server on the host's loopback answering every GET with a marker."""

    def __init__(self) -> None:
        import http.server

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"served-by-host")

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        serve_in_thread(self.server)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(("hosts", "reachable"), [('["127.0.0.1"]', True), ('["*.example.com"]', False)])
def test_the_host_allowlist_passes_only_its_hosts(tmp_path: Path, fake_llm: FakeLLM, hosts: str,
                                                  reachable: bool) -> None:
    (Path(os.environ["AGENTCLI_HOME"]) / "config.toml").write_text(f"sandbox_allowed_hosts = {hosts}\n")
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    server = _Http()
    try:
        get = f"python3 -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:{server.port}/\").read())'"
        raw = f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {server.port}), 3)'"
        fake_llm.push(Reply(tool_calls=[_bash(get), _bash(raw)]), Reply(text="done"))
        run = agentcli(["-p", "go", *BYPASS, "--output-format", "json"], proj, provider_env(fake_llm, ANTHROPIC))
    finally:
        server.close()
    results = json.dumps(fake_llm.requests[1].body["messages"][-1])
    assert ("served-by-host" in results) == reachable, run.stderr
    if not reachable:
        assert "HTTP Error 403: Forbidden" in results  # the proxy refused it
    denied = [d["tool_input"]["command"] for d in run.json()["permission_denials"]]
    assert raw in denied  # a direct connection never works: the proxy is the only way out
    leftovers = [p for p in Path(tempfile.gettempdir()).glob("agentcli-proxy-*")
                 if not Path(f"/proc/{_pid_of(p)}").exists()]
    assert leftovers == []  # the proxy's socket directory went with the run


def _pid_of(path: Path) -> int:
    parts = path.name.split("-")
    return int(parts[2]) if len(parts) >= 4 and parts[2].isdigit() else 0


def test_the_preset_default_makes_commands_read_only_and_the_flag_wins(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    fake_llm.push(Reply(tool_calls=[_bash("touch by-review")]), Reply(text="done"))
    run = agentcli(["-p", "go", "--preset", "review", "--permission-mode", "bypassPermissions", "--model", ANTHROPIC,
                    "--output-format", "json"], proj, provider_env(fake_llm, ANTHROPIC))
    assert not (proj / "by-review").exists() and run.json()["permission_denials"], run.stderr
    fake_llm.push(Reply(tool_calls=[_bash("touch by-flag")]), Reply(text="done"))
    run = agentcli(["-p", "go", "--preset", "review", "--sandbox", "workspace-write", "--permission-mode",
                    "bypassPermissions", "--model", ANTHROPIC, "--output-format", "json"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert (proj / "by-flag").exists(), run.stderr  # the flag beats the preset
