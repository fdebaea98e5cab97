"""`auto` mode in the REPL (a real pty, the real sandbox): a 20-step task that edits, builds and tests inside
the project asks nothing; a step that writes outside, reaches the network or touches execution config asks."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import FakeLLM, Reply, ToolCall
from tests.ui.ptyterm import Term, child_env

APP = "def add(a, b):\n    return a + b\n"
TEST = "import app\n\n\ndef test_add():\n    assert app.add(2, 3) == 5\n"
ID = "git -c user.name=a -c user.email=a@example.com"


def task(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """Twenty steps of ordinary work inside the project."""
    return [
        ("Write", {"file_path": str(root / "src" / "app.py"), "content": APP}),
        ("Write", {"file_path": str(root / "tests" / "test_app.py"), "content": TEST}),
        ("Bash", {"command": "python3 -m py_compile src/app.py"}),
        ("Edit", {"file_path": str(root / "src" / "app.py"), "old_string": "a + b", "new_string": "b + a"}),
        ("Bash", {"command": "(cd src && python3 -c 'import app; print(app.add(2, 3))')"}),
        ("Bash", {"command": "mkdir -p build && cp src/app.py build/ && ls build"}),
        ("Read", {"file_path": str(root / "src" / "app.py")}),
        ("Bash", {"command": f"git add -A && {ID} commit -qm wip && echo committed"}),
        ("Write", {"file_path": str(root / "README.md"), "content": "# app\n"}),
        ("Bash", {"command": "grep -n add src/app.py"}),
        ("Bash", {"command": "rm -rf build"}),
        ("Bash", {"command": "PYTHONPATH=src python3 -c 'import tests.test_app as t; t.test_add(); print(\"ok\")'"}),
        ("Edit", {"file_path": str(root / "README.md"), "old_string": "# app", "new_string": "# app\n\nAdds."}),
        ("Bash", {"command": "git status --short"}),
        ("Glob", {"pattern": "**/*.py"}),
        ("Bash", {"command": "echo ok > out.txt && cat out.txt"}),
        ("Bash", {"command": "wc -l src/app.py tests/test_app.py"}),
        ("Bash", {"command": "git diff --stat"}),
        ("Bash", {"command": "find . -name '*.pyc' -delete"}),
        ("Bash", {"command": "python3 -m compileall -q src && echo built"}),
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def outside() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="agentcli-outside-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def terms() -> Iterator[list[Term]]:
    made: list[Term] = []
    yield made
    for t in made:
        t.close()


def _repl(project: Path, fake: FakeLLM, terms: list[Term]) -> Term:
    t = Term(["--model", "openai/fake-model", "--permission-mode", "auto"], project, child_env(fake.openai_url))
    terms.append(t)
    t.prompt()
    return t


def test_a_twenty_step_task_inside_the_project_asks_nothing(project: Path, fake_llm: FakeLLM,
                                                             terms: list[Term]) -> None:
    steps = task(project)
    fake_llm.push(*(Reply(tool_calls=[ToolCall(name, args)]) for name, args in steps), Reply(text="All done."))
    t = _repl(project, fake_llm, terms)
    t.line("build and test the app")
    shown = t.expect("All done.", timeout=240)
    assert "choice [1-" not in shown, shown
    assert (project / "src" / "app.py").read_text() == APP.replace("a + b", "b + a")
    results = [str(m) for r in fake_llm.requests[1:] for m in r.body["messages"][-1:]]
    assert (project / "out.txt").exists(), results
    assert (project / "out.txt").read_text() == "ok\n" and not (project / "build").exists()
    assert not any("denied" in r.lower() for r in results), results


@pytest.mark.parametrize("step", ["outside", "network", "exec-config"])
def test_leaving_the_sandbox_or_touching_execution_config_asks(project: Path, outside: Path, fake_llm: FakeLLM,
                                                               terms: list[Term], step: str) -> None:
    call = {
        "outside": ToolCall("Bash", {"command": f"touch {outside}/made"}),
        "network": ToolCall("Bash", {"command": "python3 -c \"import socket; "
                                                "socket.create_connection(('192.0.2.1', 80), timeout=5)\""}),
        "exec-config": ToolCall("Write", {"file_path": str(project / ".git" / "hooks" / "pre-commit"),
                                          "content": "#!/bin/sh\ntouch pwned\n"}),
    }[step]
    fake_llm.push(Reply(tool_calls=[call]), Reply(text="Stopped."))
    t = _repl(project, fake_llm, terms)
    t.line("do it")
    t.expect("choice [1-")
    t.send("3")  # no
    t.expect("why")
    t.line("")
    t.expect("Stopped.")
    assert not (outside / "made").exists() and not (project / ".git" / "hooks" / "pre-commit").exists()
