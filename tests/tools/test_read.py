from __future__ import annotations

import os
from pathlib import Path

from agentcli.tools.base import ToolContext
from agentcli.tools.read import MAX_OUTPUT_CHARS, ReadTool

from .conftest import run


def test_numbered_like_cat_n(project: Path, ctx: ToolContext) -> None:
    (project / "a.py").write_text("one\ntwo\n\tthree\n")
    out = run(ReadTool(), {"file_path": str(project / "a.py")}, ctx)
    assert not out.is_error
    assert out.content == "     1\tone\n     2\ttwo\n     3\t\tthree"


def test_relative_path_and_crlf(project: Path, ctx: ToolContext) -> None:
    (project / "w.txt").write_bytes(b"a\r\nb\r\n")
    out = run(ReadTool(), {"file_path": "w.txt"}, ctx)
    assert out.content == "     1\ta\n     2\tb"


def test_offset_and_limit(project: Path, ctx: ToolContext) -> None:
    (project / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = run(ReadTool(), {"file_path": "n.txt", "offset": 4, "limit": 2}, ctx)
    assert out.content.splitlines()[:2] == ["     4\tline 4", "     5\tline 5"]
    assert "Showing lines 4-5 of 10" in out.content and "offset=6" in out.content
    tail = run(ReadTool(), {"file_path": "n.txt", "offset": 9}, ctx)
    assert tail.content == "     9\tline 9\n    10\tline 10"
    past = run(ReadTool(), {"file_path": "n.txt", "offset": 50}, ctx)
    assert past.is_error and "past the end" in past.content


def test_default_limit_2000_lines(project: Path, ctx: ToolContext) -> None:
    (project / "big.txt").write_text("x\n" * 2500)
    out = run(ReadTool(), {"file_path": "big.txt"}, ctx)
    assert out.content.count("\tx") == 2000
    assert "Showing lines 1-2000 of 2500" in out.content


def test_long_lines_truncated(project: Path, ctx: ToolContext) -> None:
    (project / "long.txt").write_text("y" * 5000 + "\nshort\n")
    out = run(ReadTool(), {"file_path": "long.txt"}, ctx)
    first = out.content.splitlines()[0]
    assert first.startswith("     1\t" + "y" * 2000) and "3000 more chars" in first
    assert out.content.splitlines()[1] == "     2\tshort"


def test_total_output_capped(project: Path, ctx: ToolContext) -> None:
    (project / "wide.txt").write_text(("z" * 1900 + "\n") * 1000)
    out = run(ReadTool(), {"file_path": "wide.txt"}, ctx)
    assert len(out.content) < MAX_OUTPUT_CHARS + 300
    assert "Output capped" in out.content and "call Read with offset=" in out.content


def test_binary_refused(project: Path, ctx: ToolContext) -> None:
    (project / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    out = run(ReadTool(), {"file_path": "img.png"}, ctx)
    assert out.is_error and "binary" in out.content
    (project / "latin.txt").write_bytes(b"caf\xe9\n")
    out = run(ReadTool(), {"file_path": "latin.txt"}, ctx)
    assert out.is_error and "not valid UTF-8" in out.content


def test_missing_file_suggests_similar_names(project: Path, ctx: ToolContext) -> None:
    (project / "parser.py").write_text("x")
    out = run(ReadTool(), {"file_path": "parsr.py"}, ctx)
    assert out.is_error and "does not exist" in out.content
    assert str(project / "parser.py") in out.content
    out = run(ReadTool(), {"file_path": "nodir/x.py"}, ctx)
    assert out.is_error and "does not exist either" in out.content


def test_directory_refused_with_hint(project: Path, ctx: ToolContext) -> None:
    (project / "src").mkdir()
    out = run(ReadTool(), {"file_path": "src"}, ctx)
    assert out.is_error and "directory" in out.content and "Glob" in out.content


def test_empty_file_says_so(project: Path, ctx: ToolContext) -> None:
    (project / "e.txt").write_text("")
    out = run(ReadTool(), {"file_path": "e.txt"}, ctx)
    assert not out.is_error and "empty" in out.content


def test_records_mtime_for_edit(project: Path, ctx: ToolContext) -> None:
    f = project / "m.txt"
    f.write_text("m\n")
    run(ReadTool(), {"file_path": "m.txt"}, ctx)
    assert ctx.read_files[str(f)] == os.stat(f).st_mtime_ns


def test_path_escapes_refused(project: Path, tmp_path: Path, ctx: ToolContext) -> None:
    out = run(ReadTool(), {"file_path": "../../etc/passwd"}, ctx)
    assert out.is_error and "outside the project" in out.content
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    (project / "innocent.txt").symlink_to(secret)
    out = run(ReadTool(), {"file_path": "innocent.txt"}, ctx)
    assert out.is_error and "outside the project" in out.content and "top secret" not in out.content
    ctx.allow_outside = True
    out = run(ReadTool(), {"file_path": "innocent.txt"}, ctx)
    assert "top secret" in out.content


def test_secrets_redacted(project: Path) -> None:
    ctx = ToolContext(project_root=project, secrets=("sk-test-123456",))
    (project / ".env").write_text("KEY=sk-test-123456\n")
    out = run(ReadTool(), {"file_path": ".env"}, ctx)
    assert "sk-test-123456" not in out.content and "[REDACTED]" in out.content


def test_big_file_window_without_loading_all(project: Path, ctx: ToolContext) -> None:
    f = project / "huge.log"
    f.write_text("".join(f"row {i}\n" for i in range(1, 5001)))
    tool = ReadTool(whole_file_bytes=100)
    out = run(tool, {"file_path": "huge.log", "offset": 4999, "limit": 5}, ctx)
    assert out.content == "  4999\trow 4999\n  5000\trow 5000"
    out = run(tool, {"file_path": "huge.log", "limit": 2}, ctx)
    assert out.content.startswith("     1\trow 1\n     2\trow 2\n") and "offset=3" in out.content
    (project / "bin.dat").write_bytes(b"ok\n" * 100 + b"\0")
    assert "binary" in run(tool, {"file_path": "bin.dat", "offset": 1, "limit": 1}, ctx).content
