from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.tools.base import ToolContext
from agentcli.tools.grep import GrepTool
from agentcli.tools.listing import find_rg

from .conftest import run

RG = find_rg()


def test_ripgrep_wheel_binary_is_found() -> None:
    assert RG is not None and os.access(RG, os.X_OK)


@pytest.fixture(params=["rg", "python"])
def grep(request: pytest.FixtureRequest) -> GrepTool:
    return GrepTool(rg_path=RG if request.param == "rg" else None)


@pytest.fixture
def tree(project: Path) -> Path:
    files = {
        "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return 0\n",
        "src/util.py": "def helper():\n    return 'hello world'\n",
        "web/index.ts": "const hello = 1;\n",
        "notes.md": "nothing here\n",
        "build/gen.py": "hello = 'generated'\n",
        ".gitignore": "build/\n",
    }
    for age, (rel, text) in enumerate(files.items()):
        p = project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        t = 1_700_000_000 - age * 10
        os.utime(p, (t, t))
    return project


def test_files_with_matches_default_newest_first(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "hello"}, ctx)
    assert out.content.splitlines() == [str(tree / "src/util.py"), str(tree / "web/index.ts")]
    out = run(grep, {"pattern": "hello", "-i": True}, ctx)
    assert out.content.splitlines() == [str(tree / "src/app.py"), str(tree / "src/util.py"), str(tree / "web/index.ts")]


def test_gitignored_files_skipped(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "generated"}, ctx)
    assert out.content == "No matches found."


def test_content_mode_with_line_numbers(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "return", "path": "src/app.py", "output_mode": "content"}, ctx)
    assert out.content == "5:    return 0"
    out = run(grep, {"pattern": "return", "path": "src", "output_mode": "content", "glob": "app*"}, ctx)
    assert out.content == f"{tree / 'src/app.py'}:5:    return 0"
    out = run(grep, {"pattern": "return", "path": "src/app.py", "output_mode": "content", "-n": False}, ctx)
    assert out.content == "    return 0"


def test_context_lines(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    args = {"pattern": "print", "path": "src/app.py", "output_mode": "content", "-B": 1, "-A": 1}
    assert run(grep, args, ctx).content == "3-def main():\n4:    print('Hello')\n5-    return 0"
    args = {"pattern": "import|return", "path": "src/app.py", "output_mode": "content", "-C": 0}
    assert run(grep, args, ctx).content == "1:import os\n5:    return 0"
    args = {"pattern": "import|return", "path": "src/app.py", "output_mode": "content", "-A": 1}
    assert run(grep, args, ctx).content == "1:import os\n2-\n--\n5:    return 0"


def test_count_mode(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "return|def", "output_mode": "count", "type": "py"}, ctx)
    assert out.content.splitlines() == [f"{tree / 'src/app.py'}:2", f"{tree / 'src/util.py'}:2"]


def test_type_and_glob_filters(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    assert run(grep, {"pattern": "hello", "type": "ts"}, ctx).content == str(tree / "web/index.ts")
    assert run(grep, {"pattern": "hello", "glob": "*.py"}, ctx).content == str(tree / "src/util.py")
    assert run(grep, {"pattern": "hello", "glob": "!*.py"}, ctx).content == str(tree / "web/index.ts")


def test_head_limit(grep: GrepTool, project: Path, ctx: ToolContext) -> None:
    (project / "many.txt").write_text("".join(f"match {i}\n" for i in range(50)))
    out = run(grep, {"pattern": "match", "path": "many.txt", "output_mode": "content", "head_limit": 3}, ctx)
    assert out.content.splitlines()[:3] == ["1:match 0", "2:match 1", "3:match 2"]
    assert "beyond head_limit" in out.content


def test_multiline(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    args = {"pattern": r"def main\(\):.*print", "path": "src/app.py", "output_mode": "content", "multiline": True}
    assert run(grep, args, ctx).content == "3:def main():\n4:    print('Hello')"
    args["multiline"] = False
    assert run(grep, args, ctx).content == "No matches found."


def test_pattern_starting_with_dash(grep: GrepTool, project: Path, ctx: ToolContext) -> None:
    (project / "opts.txt").write_text("use --force carefully\n")
    out = run(grep, {"pattern": "--force", "output_mode": "content", "path": "opts.txt"}, ctx)
    assert out.content == "1:use --force carefully"


def test_errors(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "(unclosed"}, ctx)
    assert out.is_error and "Grep failed" in out.content
    out = run(grep, {"pattern": "x", "path": "/etc"}, ctx)
    assert out.is_error and "outside the project" in out.content
    out = run(grep, {"pattern": "x", "path": "missing"}, ctx)
    assert out.is_error and "does not exist" in out.content
    out = run(grep, {"pattern": "x", "type": "nosuchtype"}, ctx)
    assert out.is_error


def test_output_cap_and_redaction(grep: GrepTool, project: Path) -> None:
    ctx = ToolContext(project_root=project, max_output_chars=300, secrets=("tok-SECRET-42",))
    (project / "big.txt").write_text("tok-SECRET-42 line\n" * 200)
    out = run(grep, {"pattern": "line", "path": "big.txt", "output_mode": "content"}, ctx)
    assert "SECRET" not in out.content and "[REDACTED]" in out.content
    assert "Output cut at 300 characters" in out.content and len(out.content) < 450


def test_binary_files_skipped(grep: GrepTool, project: Path, ctx: ToolContext) -> None:
    (project / "blob.bin").write_bytes(b"needle\0\0\0")
    (project / "text.txt").write_text("needle\n")
    assert run(grep, {"pattern": "needle"}, ctx).content == str(project / "text.txt")


def test_head_limit_in_files_mode_keeps_the_newest(grep: GrepTool, tree: Path, ctx: ToolContext) -> None:
    out = run(grep, {"pattern": "hello", "-i": True, "head_limit": 1}, ctx)
    assert out.content.splitlines() == [
        str(tree / "src/app.py"),
        "(Showing 1 of 3 files, most recently modified first.)",
    ]


def test_broken_rg_binary_falls_back(tree: Path, ctx: ToolContext) -> None:
    tool = GrepTool(rg_path=str(tree / "no-such-rg"))
    assert run(tool, {"pattern": "hello"}, ctx).content.splitlines()[0] == str(tree / "src/util.py")
    assert tool.rg_path is None
