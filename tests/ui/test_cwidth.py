"""The REPL's start does not import wcwidth (agentcli/ui/cwidth.py): prompt_toolkit's only use of it is
`wcwidth.wcwidth`, answered by a stand-in for printable ASCII and by the real module for anything else."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import prompt_toolkit

from agentcli.ui import cwidth

SAMPLE = [chr(c) for c in range(0x20, 0x7F)] + [
    "\x00", "\x01", "\x1b", "\x7f", "\u00e9", "\u0301", "\u200b", "\u200d", "\u4e2d", "\uff21", "\U0001f600",
    "\u2764", "\ufe0f", "\u0e01", "\u3000",
]


def test_prompt_toolkit_uses_only_wcwidth_dot_wcwidth() -> None:
    """Fails loudly the day prompt_toolkit imports anything else of wcwidth (the stand-in answers only this)."""
    found = []
    for path in sorted(Path(prompt_toolkit.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "wcwidth":
                found.append((path.name, node.module, tuple(a.name for a in node.names)))
            elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "wcwidth" for a in node.names):
                found.append((path.name, "import", tuple(a.name for a in node.names)))
    assert found == [("utils.py", "wcwidth", ("wcwidth",))]


def test_the_stand_in_answers_as_the_real_module() -> None:
    real = cwidth.real()
    assert [cwidth.wcwidth(c) for c in SAMPLE] == [real.wcwidth(c) for c in SAMPLE]


PROBE = """
import sys
import agentcli.ui.repl  # what the REPL imports before its prompt's first draw
from prompt_toolkit.utils import get_cwidth
assert get_cwidth("hello > world") == 13
loaded = sorted(m for m in sys.modules if m == "wcwidth" or m.startswith("wcwidth."))
print(loaded, type(sys.modules["wcwidth"]).__name__)
assert get_cwidth("\\u4e2d\\u6587") == 4
print(type(sys.modules["wcwidth"]).__name__, "wcwidth.wcwidth" in sys.modules)
"""


def test_the_repl_imports_wcwidth_only_for_a_wide_character() -> None:
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    before, after = run.stdout.splitlines()
    assert before == "['wcwidth'] _StandIn"
    assert after == "module True"
