from __future__ import annotations

import os
from pathlib import Path

from agentcli.tools.base import ToolContext
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool

from .conftest import run

SOURCE = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"


def _read(ctx: ToolContext, name: str) -> None:
    assert not run(ReadTool(), {"file_path": name}, ctx).is_error


def test_unique_replacement(project: Path, ctx: ToolContext) -> None:
    f = project / "calc.py"
    f.write_text(SOURCE)
    _read(ctx, "calc.py")
    args = {
        "file_path": "calc.py",
        "old_string": "def add(a, b):\n    return a - b",
        "new_string": "def add(a, b):\n    return a + b",
    }
    out = run(EditTool(), args, ctx)
    assert not out.is_error, out.content
    assert f.read_text() == SOURCE.replace("return a - b", "return a + b", 1)
    assert "replaced 1 occurrence" in out.content and "     2\t    return a + b" in out.content
    assert out.display is not None and "-    return a - b" in out.display and "+    return a + b" in out.display
    assert out.metadata["replacements"] == 1


def test_not_unique_is_an_error_naming_lines(project: Path, ctx: ToolContext) -> None:
    f = project / "calc.py"
    f.write_text(SOURCE)
    _read(ctx, "calc.py")
    out = run(EditTool(), {"file_path": "calc.py", "old_string": "return a - b", "new_string": "x"}, ctx)
    assert out.is_error
    assert "occurs 2 times" in out.content and "lines 2, 6" in out.content and "replace_all" in out.content
    assert f.read_text() == SOURCE


def test_replace_all(project: Path, ctx: ToolContext) -> None:
    f = project / "calc.py"
    f.write_text(SOURCE)
    _read(ctx, "calc.py")
    out = run(
        EditTool(), {"file_path": "calc.py", "old_string": "a, b", "new_string": "x, y", "replace_all": True}, ctx
    )
    assert not out.is_error and "replaced 2 occurrences" in out.content
    assert f.read_text().count("x, y") == 2


def test_not_found_is_an_error(project: Path, ctx: ToolContext) -> None:
    (project / "calc.py").write_text(SOURCE)
    _read(ctx, "calc.py")
    out = run(EditTool(), {"file_path": "calc.py", "old_string": "return a * b", "new_string": "x"}, ctx)
    assert out.is_error and "not found" in out.content


def test_not_found_mentions_whitespace_when_it_differs(project: Path, ctx: ToolContext) -> None:
    (project / "calc.py").write_text(SOURCE)
    _read(ctx, "calc.py")
    out = run(
        EditTool(), {"file_path": "calc.py", "old_string": "def add(a, b):\n  return a - b", "new_string": "x"}, ctx
    )
    assert out.is_error and "whitespace" in out.content and "indentation" in out.content


def test_not_found_detects_line_number_prefixes(project: Path, ctx: ToolContext) -> None:
    (project / "calc.py").write_text(SOURCE)
    _read(ctx, "calc.py")
    out = run(
        EditTool(),
        {"file_path": "calc.py", "old_string": "     2\t    return a - b\n\n     3\t", "new_string": "x"},
        ctx,
    )
    assert out.is_error and "line-number prefixes" in out.content


def test_identical_strings_rejected(project: Path, ctx: ToolContext) -> None:
    (project / "calc.py").write_text(SOURCE)
    _read(ctx, "calc.py")
    out = run(EditTool(), {"file_path": "calc.py", "old_string": "a", "new_string": "a"}, ctx)
    assert out.is_error and "identical" in out.content


def test_requires_prior_read_and_freshness(project: Path, ctx: ToolContext) -> None:
    f = project / "calc.py"
    f.write_text(SOURCE)
    args = {"file_path": "calc.py", "old_string": "def sub", "new_string": "def minus"}
    out = run(EditTool(), args, ctx)
    assert out.is_error and "has not been read" in out.content
    _read(ctx, "calc.py")
    f.write_text(SOURCE + "# user change\n")
    os.utime(f, ns=(5, 5))
    out = run(EditTool(), args, ctx)
    assert out.is_error and "modified since" in out.content
    _read(ctx, "calc.py")
    assert not run(EditTool(), args, ctx).is_error
    again = {"file_path": "calc.py", "old_string": "def minus", "new_string": "def sub2"}
    assert not run(EditTool(), again, ctx).is_error, "an Edit counts as a fresh read for the next one"


def test_crlf_file_matched_from_lf_old_string(project: Path, ctx: ToolContext) -> None:
    f = project / "w.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    _read(ctx, "w.txt")
    out = run(EditTool(), {"file_path": "w.txt", "old_string": "one\ntwo", "new_string": "1\n2"}, ctx)
    assert not out.is_error, out.content
    assert f.read_bytes() == b"1\r\n2\r\nthree\r\n"


def test_empty_old_string_creates_file(project: Path, ctx: ToolContext) -> None:
    out = run(EditTool(), {"file_path": "new/mod.py", "old_string": "", "new_string": "x = 1\n"}, ctx)
    assert not out.is_error and (project / "new/mod.py").read_text() == "x = 1\n"
    out = run(EditTool(), {"file_path": "new/mod.py", "old_string": "", "new_string": "y"}, ctx)
    assert out.is_error and "not" in out.content


def test_missing_file_and_outside(project: Path, ctx: ToolContext) -> None:
    out = run(EditTool(), {"file_path": "nope.py", "old_string": "a", "new_string": "b"}, ctx)
    assert out.is_error and "does not exist" in out.content
    out = run(EditTool(), {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}, ctx)
    assert out.is_error and "outside the project" in out.content


def test_binary_file_refused(project: Path, ctx: ToolContext) -> None:
    f = project / "b.bin"
    f.write_bytes(b"abc\0def")
    ctx.read_files = {str(f): os.stat(f).st_mtime_ns}
    out = run(EditTool(), {"file_path": "b.bin", "old_string": "abc", "new_string": "x"}, ctx)
    assert out.is_error and "binary" in out.content
