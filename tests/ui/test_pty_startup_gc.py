"""The REPL's start runs with the cyclic GC paused until its prompt session exists (agentcli/__main__.py pauses
it; agentcli.cli.entry resumes it through `run_repl(on_ready=…)`): importing prompt_toolkit and making the
session create tens of thousands of objects, and collections during that cost the start ~20 M instructions
(bench/RESULTS.md, "perf3")."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect  # type: ignore[import-untyped]

from tests.fakes import FakeLLM
from tests.ui.ptyterm import CPR_REQUEST, child_env

# `agentcli` as its console script runs it, plus a GC callback that notes every collection made after agentcli's
# entry was imported and before the REPL module had finished importing (not at exit, when modules are gone).
WRAPPER = """
import gc, os, sys
def noted(phase, info):
    repl = sys.modules.get("agentcli.ui.repl")
    if (phase == "start" and "agentcli.cli.entry" in sys.modules and not hasattr(repl, "Repl")
            and not sys.is_finalizing()):  # (not the collection of the interpreter's exit)
        with open(os.environ["GC_NOTES"], "a") as f:
            f.write(f"collection of generation {info['generation']}\\n")
gc.callbacks.append(noted)
sys.argv = ["agentcli", *sys.argv[1:]]
from agentcli.__main__ import main
main()
"""


def test_no_collection_while_the_repl_loads(tmp_path: Path, project: Path, fake_llm: FakeLLM) -> None:
    notes = tmp_path / "gc-notes"
    env = child_env(fake_llm.openai_url, GC_NOTES=str(notes))
    child = pexpect.spawn(sys.executable, ["-c", WRAPPER, "--model", "openai/fake-model"], cwd=str(project),
                          env=env, dimensions=(30, 100), encoding="utf-8", timeout=20)
    try:
        while child.expect(["›", re.escape(CPR_REQUEST)]) == 1:
            child.send("\x1b[1;1R")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert not notes.exists(), notes.read_text()
