from __future__ import annotations

import os
import stat
from pathlib import Path

from agentcli.tools.base import ToolContext
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool

from .conftest import run


def test_creates_file_and_parents(project: Path, ctx: ToolContext) -> None:
    out = run(WriteTool(), {"file_path": "pkg/sub/new.py", "content": "a\nb\n"}, ctx)
    assert not out.is_error
    assert (project / "pkg/sub/new.py").read_text() == "a\nb\n"
    assert out.display == "new file pkg/sub/new.py, 2 lines"
    assert out.metadata["created"] is True
    assert not [p for p in (project / "pkg/sub").iterdir() if p.name.endswith(".tmp")]


def test_new_file_mode_follows_umask(project: Path, ctx: ToolContext) -> None:
    old = os.umask(0o022)
    try:
        run(WriteTool(), {"file_path": "m.txt", "content": "x"}, ctx)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(project / "m.txt").st_mode) == 0o644


def test_overwrite_requires_prior_read(project: Path, ctx: ToolContext) -> None:
    f = project / "exists.txt"
    f.write_text("old\n")
    out = run(WriteTool(), {"file_path": "exists.txt", "content": "new\n"}, ctx)
    assert out.is_error and "Read it first" in out.content
    assert f.read_text() == "old\n"
    run(ReadTool(), {"file_path": "exists.txt"}, ctx)
    out = run(WriteTool(), {"file_path": "exists.txt", "content": "new\n"}, ctx)
    assert not out.is_error and f.read_text() == "new\n"
    assert out.display is not None and "-old" in out.display and "+new" in out.display
    assert out.metadata["added"] == 1 and out.metadata["removed"] == 1


def test_overwrite_refused_when_file_changed_since_read(project: Path, ctx: ToolContext) -> None:
    f = project / "c.txt"
    f.write_text("v1\n")
    run(ReadTool(), {"file_path": "c.txt"}, ctx)
    f.write_text("v2 by the user\n")
    os.utime(f, ns=(1, 1))
    out = run(WriteTool(), {"file_path": "c.txt", "content": "model\n"}, ctx)
    assert out.is_error and "modified since" in out.content
    assert f.read_text() == "v2 by the user\n"


def test_keeps_mode_of_existing_file(project: Path, ctx: ToolContext) -> None:
    f = project / "run.sh"
    f.write_text("#!/bin/sh\n")
    f.chmod(0o755)
    run(ReadTool(), {"file_path": "run.sh"}, ctx)
    run(WriteTool(), {"file_path": "run.sh", "content": "#!/bin/sh\necho hi\n"}, ctx)
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o755


def test_consecutive_writes_need_only_one_read(project: Path, ctx: ToolContext) -> None:
    run(WriteTool(), {"file_path": "w.txt", "content": "1"}, ctx)
    out = run(WriteTool(), {"file_path": "w.txt", "content": "2"}, ctx)
    assert not out.is_error and (project / "w.txt").read_text() == "2"


def test_write_through_symlink_keeps_link(project: Path, ctx: ToolContext) -> None:
    (project / "real.txt").write_text("r\n")
    (project / "link.txt").symlink_to(project / "real.txt")
    run(ReadTool(), {"file_path": "link.txt"}, ctx)
    out = run(WriteTool(), {"file_path": "link.txt", "content": "changed\n"}, ctx)
    assert not out.is_error
    assert (project / "link.txt").is_symlink() and (project / "real.txt").read_text() == "changed\n"


def test_refuses_outside_and_directories(project: Path, tmp_path: Path, ctx: ToolContext) -> None:
    out = run(WriteTool(), {"file_path": "../escape.txt", "content": "x"}, ctx)
    assert out.is_error and "outside the project" in out.content
    assert not (tmp_path / "escape.txt").exists()
    (tmp_path / "target").mkdir()
    (project / "out").symlink_to(tmp_path / "target")
    out = run(WriteTool(), {"file_path": "out/x.txt", "content": "x"}, ctx)
    assert out.is_error and not (tmp_path / "target" / "x.txt").exists()
    (project / "d").mkdir()
    out = run(WriteTool(), {"file_path": "d", "content": "x"}, ctx)
    assert out.is_error and "directory" in out.content


def test_parent_is_a_file(project: Path, ctx: ToolContext) -> None:
    (project / "f").write_text("x")
    out = run(WriteTool(), {"file_path": "f/child.txt", "content": "x"}, ctx)
    assert out.is_error and "Cannot write" in out.content
