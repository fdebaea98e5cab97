"""The committed completion scripts match what the typer tree generates (regenerate with
`python -m agentcli.completion SHELL > completions/agentcli.SHELL`), and the bash one completes what it should,
run by a real bash against a real `agentcli __complete`."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agentcli.cli import ROOT_FLAGS, SUBCOMMANDS
from agentcli.completion import GENERATORS, command_tree
from tests.cli.helpers import imported_modules

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("shell", sorted(GENERATORS))
def test_committed_completion_is_current(shell: str) -> None:
    committed = (ROOT / "completions" / f"agentcli.{shell}").read_text()
    fix = f"python -m agentcli.completion {shell} > completions/agentcli.{shell}"
    # In a fresh interpreter, as the fix command runs: in this one, a module imported earlier (the Claude Agent
    # SDK's `Literal["user", "project", "local"] | None`) can hand typer an equal Literal in another order
    # through typing's cache, and the choices come out permuted.
    fresh = subprocess.run([sys.executable, "-m", "agentcli.completion", shell], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout
    assert committed == fresh, f"stale; regenerate: {fix}"


def test_every_command_and_flag_is_completed() -> None:
    text = GENERATORS["bash"]()
    paths = {n.path for n in command_tree()}
    assert set(SUBCOMMANDS) <= paths and {"sessions list", "permissions add", "presets show"} <= paths
    for f in ROOT_FLAGS:
        assert all(name in text for name in f.names)
    for node in command_tree():
        for opt in node.options:
            assert all(name in text for name in opt.names), (node.path, opt.names)


def test_bash_script_parses() -> None:
    subprocess.run(["bash", "-n", str(ROOT / "completions" / "agentcli.bash")], check=True)


def _complete(line: str, cwd: Path) -> list[str]:
    """COMPREPLY for `line` (the cursor at its end), from the committed script in a real bash."""
    words = shlex.split(line) + ([""] if line.endswith(" ") else [])
    script = (f"source {shlex.quote(str(ROOT / 'completions' / 'agentcli.bash'))}\n"
              f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
              "_agentcli; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return [w for w in proc.stdout.splitlines() if w]


def test_bash_completes_commands_flags_and_choices(tmp_path: Path) -> None:
    assert _complete("agentcli sess", tmp_path) == ["sessions"]
    assert _complete("agentcli --output-format ", tmp_path) == ["text", "json", "stream-json"]
    assert "--allowedTools" in _complete("agentcli --allow", tmp_path)
    assert _complete("agentcli sessions l", tmp_path) == ["list"]
    assert _complete("agentcli sessions list --j", tmp_path) == ["--json"]
    assert _complete("agentcli permissions add R --scope ", tmp_path) == ["local", "project", "user"]
    assert _complete('agentcli "fix sessions" sess', tmp_path) == []  # a word after the first is the prompt's


def test_bash_completes_sessions_models_and_presets_from_agentcli_data(tmp_path: Path) -> None:
    from agentcli.session.store import open_session
    from tests.session.helpers import text_turn

    project = tmp_path / "proj"
    project.mkdir()
    s = open_session(project, model="m1", provider="anthropic", name="bugfix")
    assert s.writer is not None
    text_turn(s.writer, "fix the bug", "fixed")
    s.close()
    assert {s.session_id, "bugfix"} <= set(_complete("agentcli --resume ", project))
    assert _complete("agentcli sessions show bug", project) == ["bugfix"]
    assert "claude-sonnet-4-5" in _complete("agentcli --model claude-son", project)
    assert _complete("agentcli presets show read", project) == ["readonly"]
    assert "coding" in _complete("agentcli --preset ", project)
    assert _complete("agentcli -p x --allowedTools Read Ed", project) == ["Edit"]
    assert _complete("agentcli --allowedTools Gl", project) == ["Glob"]
    assert _complete("agentcli permissions check Gr", project) == ["Grep"]


@pytest.mark.parametrize("kind", ["sessions", "models", "presets", "providers", "tools"])
def test_complete_values_import_no_cli_no_provider(tmp_path: Path, kind: str) -> None:
    imported = imported_modules(["__complete", kind], tmp_path, {})
    assert not {"typer", "pydantic", "rich", "httpx", "anthropic", "openai", "agentcli.cli"} & imported


def test_complete_values_never_fails(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "agentcli", "__complete", "no-such-kind"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
