"""Running the real `agentcli` as a subprocess against the fake LLM server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.server import FakeLLM

ANTHROPIC = "anthropic/claude-sonnet-4-5"
OPENAI = "openai/gpt-4.1"


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.stdout)
        return result

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


def provider_env(fake: FakeLLM, model: str) -> dict[str, str]:
    if model.startswith("anthropic/"):
        return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-0000000000"}
    return {"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-0000000000"}


def agentcli(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None, timeout: float = 60,
    python_flags: tuple[str, ...] = (),
) -> Run:
    full_env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    full_env.update(env or {})
    # -X faulthandler (this interpreter only): a run that outlives `timeout` gets SIGABRT before it is killed, and
    # every thread's stack lands in the test's failure (`Hung`); nothing changes for a run that finishes.
    with subprocess.Popen([sys.executable, "-X", "faulthandler", *python_flags, "-m", "agentcli", *args], cwd=cwd,
                          env=full_env, text=True, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            stdout, stderr = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Hung(proc.args, timeout, *_abort(proc)) from None
    return Run(proc.returncode, stdout, stderr)


class Hung(subprocess.TimeoutExpired):
    """A run killed at its timeout, with what it had printed and its threads' stacks (at the end of stderr)."""

    def __str__(self) -> str:
        out, errs = (x if isinstance(x, str) else "" for x in (self.stdout, self.stderr))  # text=True: str
        return f"{super().__str__()}\n--- stdout ---\n{out}\n--- stderr ---\n{errs}"


def _abort(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGABRT (faulthandler dumps every thread's stack, then the process aborts); what it printed. Bounded: if
    it does not end, or a process it started keeps its output open, SIGKILL and what had arrived by then."""
    proc.send_signal(signal.SIGABRT)
    try:
        return proc.communicate(timeout=10)
    except subprocess.TimeoutExpired as err:
        proc.kill()
        proc.wait()
        out, errs = (x.decode(errors="replace") if isinstance(x, bytes) else x or "" for x in (err.stdout, err.stderr))
        return out, errs


def git_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=path, check=True
    )
    return path


def imported_modules(args: list[str], cwd: Path, env: dict[str, str]) -> set[str]:
    """The modules a real `agentcli` run imported; the run must succeed."""
    return run_and_modules(args, cwd, env)[1]


def run_and_modules(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[Run, set[str]]:
    """A real `agentcli` run (which must succeed) and every module it imported, as `python -v` reports them on
    stderr (its lines are taken out of the run's stderr). Not `-X importtime`: its report leaves out what is
    imported through `importlib.import_module` (tool implementations, provider adapters). A flag of this
    interpreter only: the processes the run starts (hooks, commands, servers) are not made verbose."""
    run = agentcli(args, cwd, env, python_flags=("-v",))
    modules = verbose_imports(run.stderr)
    stderr = "".join(line for line in run.stderr.splitlines(keepends=True)
                     if not (line.startswith(_VERBOSE_LINES) or _VERBOSE_IMPORT.search(line)))
    run = Run(run.status, run.stdout, stderr)
    assert run.status == 0, run.stderr
    return run, modules


_VERBOSE_IMPORT = re.compile(r"import '([\w.]+)' # ")
_VERBOSE_LINES = ("# ", "import ", "Processing ", "Adding directory", "Skipping ")


def verbose_imports(stderr: str) -> set[str]:
    """The modules `python -v` reports on `stderr`. Anywhere in a line, not only at its start: the report is
    written as the message, then its newline, so a module imported on another thread at the same moment
    (telemetry's preload, for one) can put its own line between the two, and a line reads
    `# code object from '…'import 'opentelemetry.sdk.trace' # <…>`."""
    return set(_VERBOSE_IMPORT.findall(stderr))


def in_process_project(tmp_path: Path, fake: FakeLLM, monkeypatch: Any, files: dict[str, str],
                       **overrides: Any) -> tuple[Path, Any]:
    """A git project and its settings for an agent built in this process against `fake` (provider variables set
    through `monkeypatch`, a `pytest.MonkeyPatch`), as `build()` would get them from the CLI."""
    from agentcli.settings.config import load_settings

    for k, v in provider_env(fake, ANTHROPIC).items():
        monkeypatch.setenv(k, v)
    proj = git_repo(tmp_path / "proj", files)
    return proj, load_settings(proj, {"model": ANTHROPIC, **overrides})
