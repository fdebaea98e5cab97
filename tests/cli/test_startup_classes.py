"""Start-up makes no class whose methods are generated and compiled (issue 25, speed): every dataclass that a
`-p` run or the REPL's start imports is an `@record` (agentcli/record.py), whose methods are shared. A plain
`@dataclass` costs ~0.5 ms of every start (bench/RESULTS.md, "perf3"), so a new one on these paths fails here:
make it `@record` (`@record(frozen=False)` for a mutable one), or import its module only when it is used."""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import ANTHROPIC, git_repo, imported_modules, provider_env
from tests.fakes.server import FakeLLM, Reply


def _generated(modules: set[str]) -> list[str]:
    """agentcli's dataclasses in `modules` made by `dataclasses` itself (a generated `__init__`)."""
    found = []
    for name in sorted(m for m in modules if m == "agentcli" or m.startswith("agentcli.")):
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (isinstance(obj, type) and obj.__module__ == name and dataclasses.is_dataclass(obj)
                    and obj.__init__.__module__ != "agentcli.record"):
                found.append(f"{name}.{obj.__qualname__}")
    return found


def test_a_one_reply_run_imports_no_generated_dataclass(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="done"))
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})  # as a user runs it: a git repository's checks too
    imported = imported_modules(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert "agentcli.permissions.gitcheck" in imported
    assert "agentcli.assembly.runtime" in imported
    assert _generated(imported) == []


def test_the_repl_start_imports_no_generated_dataclass() -> None:
    """What the REPL imports before its prompt: the command line, the settings, the REPL module."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import agentcli.cli.entry, agentcli.settings.config, agentcli.assembly.firstrun, agentcli.ui.repl"],
        capture_output=True, text=True, check=True)
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "agentcli.ui.repl" in imported
    assert _generated(imported) == []
