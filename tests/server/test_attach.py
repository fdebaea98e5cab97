"""`agentcli -p … --attach URL`: the warm server runs the turn; the client finds the token in agentcli's home,
imports nothing of the agent, and exits with the run's status. The server's sessions are ordinary sessions, and
one killed mid-turn (SIGKILL) leaves its session file resumable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from agentcli.server.attach import Attached, deny
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Fault, Reply
from tests.fakes.server import FakeLLM
from tests.server.conftest import ROOT, TIMEOUT, Server
from tests.server.test_attach_argv import HEAVY


def attach(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The client with no provider set up at all: only the server could have answered."""
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "agentcli", *args],
                          cwd=cwd, env={**clean, "PYTHONPATH": str(ROOT), **(env or {})},
                          capture_output=True, text=True, timeout=TIMEOUT)


def imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_attach_runs_on_the_server_thin_and_resumable(server: Server, fake_llm: FakeLLM, tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    fake_llm.push(Reply(text="hello from the warm server"))
    run = attach(["-p", "hello", "--attach", server.url], proj)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout == "hello from the warm server\n"
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], cwd=proj, capture_output=True,
                          text=True, timeout=TIMEOUT)  # what this interpreter's site loads anyway
    loaded = imported(run.stderr) - imported(bare.stderr)
    heavy = {m for m in loaded if m in HEAVY or m.startswith(tuple(h + "." for h in HEAVY))}
    assert not heavy, sorted(heavy)

    # an ordinary session of this project: resumed without the server
    fake_llm.push(Reply(text="resumed"))
    again = agentcli(["-p", "again", "-c", "--model", ANTHROPIC, "--output-format", "json"], proj,
                     env=provider_env(fake_llm, ANTHROPIC))
    assert again.status == 0, again.stderr
    assert "hello" in str(fake_llm.requests[-1].body["messages"])

    # a reader that leaves at once (`| head -0`): the quiet status of a closed pipe, no traceback
    fake_llm.push(Reply(text="nobody reads this"))
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    gone = subprocess.Popen([sys.executable, "-m", "agentcli", "-p", "hi", "--attach", server.url, "--output-format",
                             "stream-json"], cwd=proj, env={**clean, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert gone.stdout is not None and gone.stderr is not None
    gone.stdout.close()
    assert gone.wait(TIMEOUT) == 141
    assert gone.stderr.read() == ""
    gone.stderr.close()


def test_attach_refuses_without_a_token_for_another_machine(tmp_path: Path) -> None:
    run = attach(["-p", "hello", "--attach", "http://192.0.2.1:9"], tmp_path)
    assert run.returncode == 2
    assert "--token" in run.stderr and "AGENTCLI_SERVER_TOKEN" in run.stderr


def test_wrong_token_is_a_clear_refusal(server: Server, tmp_path: Path) -> None:
    run = attach(["-p", "hello", "--attach", server.url, "--token", "nope"], tmp_path)
    assert run.returncode == 2 and "401" in run.stderr


def test_non_loopback_bind_needs_the_opt_in(tmp_path: Path) -> None:
    run = agentcli(["serve", "--host", "0.0.0.0", "--port", "0"], tmp_path)
    assert run.status == 2 and "--allow-remote" in run.stderr
    assert not (Path(os.environ["AGENTCLI_HOME"]) / "server" / "token").exists()


def test_killing_the_server_mid_turn_leaves_a_resumable_session(server: Server, fake_llm: FakeLLM,
                                                               tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    client = Attached(server.url, server.token)
    client.open(str(proj), None)
    fake_llm.push(Reply(text="first answer"))
    assert [line["type"] for line in client.turn("first", deny)][-1] == "result"
    fake_llm.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))
    with server.client() as c:
        assert c.post(f"/v1/sessions/{client.sid}/prompt", json={"prompt": "second"}).status_code == 202
    assert fake_llm.wait_for_requests(2, TIMEOUT)
    sid = client.sid
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(TIMEOUT)
    fake_llm.push(Reply(text="back again"))
    resumed = agentcli(["-p", "and now", "--resume", sid, "--model", ANTHROPIC], proj,
                       env=provider_env(fake_llm, ANTHROPIC))
    assert resumed.status == 0, resumed.stderr
    assert resumed.stdout.strip() == "back again"
    assert "first answer" in str(fake_llm.requests[-1].body["messages"])


def test_sigterm_mid_turn_ends_the_watchers_streams_and_leaves_a_resumable_session(
        server: Server, fake_llm: FakeLLM, tmp_path: Path) -> None:
    """A stop asked while a client watches (uvicorn's graceful shutdown would wait for its stream for ever): the
    turn is stopped, the watcher gets its result and the end of its stream, the server exits, the session
    resumes."""
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    client = Attached(server.url, server.token)
    client.open(str(proj), None)
    fake_llm.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))
    seen: list[dict[str, object]] = []
    watcher = threading.Thread(target=lambda: seen.extend(client.turn("wait", deny)), daemon=True)
    watcher.start()
    assert fake_llm.wait_for_requests(1, TIMEOUT)
    server.proc.send_signal(signal.SIGTERM)
    server.proc.wait(TIMEOUT)  # uvicorn ends the process with the signal it stopped for (-15), once shut down
    watcher.join(TIMEOUT)
    assert seen and seen[-1]["type"] == "result" and seen[-1]["is_error"]
    fake_llm.push(Reply(text="back after the stop"))
    resumed = agentcli(["-p", "and now", "--resume", client.sid, "--model", ANTHROPIC], proj,
                       env=provider_env(fake_llm, ANTHROPIC))
    assert resumed.status == 0, resumed.stderr
    assert resumed.stdout.strip() == "back after the stop"


def test_the_attached_repl_and_an_interrupt(server: Server, fake_llm: FakeLLM, tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"notes.txt": "alpha\n"})
    fake_llm.push(Reply(text="answered in the attached repl"))
    clean = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    repl = subprocess.run([sys.executable, "-m", "agentcli", "--attach", server.url], input="hello\n", cwd=proj,
                          env={**clean, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=TIMEOUT)
    assert repl.returncode == 0, repl.stderr
    assert "answered in the attached repl" in repl.stdout

    client = Attached(server.url, server.token)
    client.open(str(proj), None)
    before = len(fake_llm.requests)
    fake_llm.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))

    def interrupt() -> None:  # once the model request is under way
        assert fake_llm.wait_for_requests(before + 1, TIMEOUT)
        with server.client() as c:
            assert c.post(f"/v1/sessions/{client.sid}/interrupt").json() == {"interrupted": True}

    stopper = threading.Thread(target=interrupt)
    stopper.start()
    seen = list(client.turn("wait", deny))
    stopper.join(TIMEOUT)
    client.close()
    assert seen[-1]["type"] == "result" and seen[-1]["error"]["code"] == "interrupted"
    assert seen[-1]["exit_status"] == 130

    # Ctrl-C in an attached -p: the client ends its session on the way out (its turn stops on the server). Started
    # with SIGINT ignored, as `agentcli … &` in a script starts it: the client used to sit out the whole turn and
    # exit 0. Set, not inherited from the runner (one started in the background had it ignored: the flake)
    before = len(fake_llm.requests)
    fake_llm.push(Reply(text="never", fault=Fault("slow_first_byte", delay_s=30)))
    run = started_with(signal.SIG_IGN, ["-p", "wait", "--attach", server.url, "--output-format", "stream-json"],
                       proj, {**clean, "PYTHONPATH": str(ROOT)})
    assert run.stdout is not None
    assert '"init"' in run.stdout.readline()  # the client knows its session
    assert fake_llm.wait_for_requests(before + 1, TIMEOUT)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=TIMEOUT)
    assert (run.returncode, err) == (130, "agentcli: interrupted\n"), out[-2000:]
    with server.client() as c:
        assert c.get("/v1/sessions").json() == {"sessions": []}


def started_with(sigint: signal.Handlers, args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """`agentcli ARGS` started with SIGINT's disposition set, not inherited from whatever runs the tests (one
    started in the background by a script has it ignored): an ignored signal stays ignored across exec."""
    boot = "import os, signal, sys; signal.signal(signal.SIGINT, getattr(signal, sys.argv[1])); " \
           "os.execv(sys.argv[2], sys.argv[2:])"
    return subprocess.Popen([sys.executable, "-c", boot, sigint.name, sys.executable, "-m", "agentcli", *args],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_attach_says_which_flags_the_server_overrides(tmp_path: Path) -> None:
    run = attach(["-p", "hello", "--attach", "http://192.0.2.1:9", "--model", "x/y", "--token", "t", "-c"],
                 tmp_path)
    assert "ignored: --continue, --model" in run.stderr
    bare = attach(["-p", "hello", "--attach", "http://127.0.0.1:9", "--token", "t", "-r"], tmp_path)
    assert bare.returncode == 2 and "needs a session id" in bare.stderr
