"""Questions asked per task: `default` against `auto` (issue 27). The policy decides each call of a scripted
task as a session would (builtin rules, the real kernel sandbox in workspace-write); every `ask` is a question.

    .venv/bin/python bench/bench_questions.py

Tasks: the 4-turn Read→Edit→Bash script of bench_headless.py, and a 20-step edit-build-test task inside the
project (tests/permissions/test_auto_mode_pty.py runs the same steps in the REPL and checks that `auto` asks
nothing there). A step the sandbox itself stops (a write outside, the network) is asked about after it ran,
by the escalation offer, in both modes alike: none of these steps does that.

Measured (2026-11-28, Linux, bubblewrap): 4-turn: default 1, acceptEdits 0, auto 0 questions; 20-step:
default 14, acceptEdits 8, auto 0.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentcli.permissions.loader import builtin_rules
from agentcli.permissions.policy import RulePolicy
from agentcli.sandbox.core import Sandbox
from agentcli.sandbox.spec import SandboxSpec
from agentcli.tools.base import Tool, ToolContext
from agentcli.tools.bash import BashTool
from agentcli.tools.edit import EditTool
from agentcli.tools.glob import GlobTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool

TOOLS: dict[str, Tool] = {"Read": ReadTool(), "Edit": EditTool(), "Write": WriteTool(), "Bash": BashTool(),
                          "Glob": GlobTool()}
ID = "git -c user.name=a -c user.email=a@example.com"


def four_turn(root: Path) -> list[tuple[str, dict[str, Any]]]:
    return [("Read", {"file_path": str(root / "parse.py")}),
            ("Edit", {"file_path": str(root / "parse.py"), "old_string": "+ 1", "new_string": "+ 0"}),
            ("Bash", {"command": "true"})]


def twenty_steps(root: Path) -> list[tuple[str, dict[str, Any]]]:
    src, tests = root / "src", root / "tests"
    return [
        ("Write", {"file_path": str(src / "app.py"), "content": "x"}),
        ("Write", {"file_path": str(tests / "test_app.py"), "content": "x"}),
        ("Bash", {"command": "python3 -m py_compile src/app.py"}),
        ("Edit", {"file_path": str(src / "app.py"), "old_string": "a + b", "new_string": "b + a"}),
        ("Bash", {"command": "(cd src && python3 -c 'import app; print(app.add(2, 3))')"}),
        ("Bash", {"command": "mkdir -p build && cp src/app.py build/ && ls build"}),
        ("Read", {"file_path": str(src / "app.py")}),
        ("Bash", {"command": f"git add -A && {ID} commit -qm wip && echo committed"}),
        ("Write", {"file_path": str(root / "README.md"), "content": "# app\n"}),
        ("Bash", {"command": "grep -n add src/app.py"}),
        ("Bash", {"command": "rm -rf build"}),
        ("Bash", {"command": "PYTHONPATH=src python3 -m pytest -q tests"}),
        ("Edit", {"file_path": str(root / "README.md"), "old_string": "# app", "new_string": "# app\n\nAdds."}),
        ("Bash", {"command": "git status --short"}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Bash", {"command": "echo ok > out.txt && cat out.txt"}),
        ("Bash", {"command": "wc -l src/app.py tests/test_app.py"}),
        ("Bash", {"command": "git diff --stat"}),
        ("Bash", {"command": "find . -name '*.pyc' -delete"}),
        ("Bash", {"command": "python3 -m compileall -q src && echo built"}),
    ]


def questions(root: Path, mode: str, steps: list[tuple[str, dict[str, Any]]]) -> int:
    spec = SandboxSpec("workspace-write", root, (root,), home=root.parent / "home",
                       agentcli_home=root.parent / "home" / ".agentcli")
    ctx = ToolContext(project_root=root, shell_cwd=root, sandbox=Sandbox(spec))
    policy = RulePolicy(mode, ctx, builtin_rules(root))
    policy.bind(ctx)
    return sum(policy.check(TOOLS[name], args).behavior == "ask" for name, args in steps)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-questions-") as tmp:
        root = Path(os.path.realpath(tmp)) / "proj"
        (root / "src").mkdir(parents=True)
        (root / "tests").mkdir()
        (root / "parse.py").write_text("def parse(x):\n    return x + 1\n")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        sandbox = Sandbox(SandboxSpec("workspace-write", root, (root,)))
        print(f"sandbox: {sandbox.describe()}")
        tasks = (("4-turn Read→Edit→Bash", four_turn(root)), ("20-step edit-build-test", twenty_steps(root)))
        for label, steps in tasks:
            counts = {mode: questions(root, mode, steps) for mode in ("default", "acceptEdits", "auto")}
            print(f"{label} ({len(steps)} tool calls): " + ", ".join(f"{m} {n}" for m, n in counts.items()))


if __name__ == "__main__":
    main()
