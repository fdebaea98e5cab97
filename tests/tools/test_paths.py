from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.tools.base import ToolContext
from agentcli.tools.paths import display_path, is_inside, refuse_outside, resolve_in_project


def test_relative_paths_start_at_shell_cwd(project: Path, ctx: ToolContext) -> None:
    (project / "sub").mkdir()
    assert resolve_in_project("a.txt", ctx).path == project / "a.txt"
    ctx.shell_cwd = project / "sub"
    r = resolve_in_project("a.txt", ctx)
    assert r.path == project / "sub" / "a.txt" and r.inside


def test_dotdot_escape_is_outside(project: Path, ctx: ToolContext) -> None:
    r = resolve_in_project("../../etc/passwd", ctx)
    assert r.path == Path(os.path.realpath(project / "../../etc/passwd"))
    assert not r.inside
    assert not is_inside("sub/../../x", ctx)
    assert is_inside("sub/../x", ctx)


def test_absolute_and_home_paths(project: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not resolve_in_project("/etc/passwd", ctx).inside
    assert resolve_in_project(str(project / "x"), ctx).inside
    monkeypatch.setenv("HOME", str(project))
    r = resolve_in_project("~/notes.md", ctx)
    assert r.path == project / "notes.md" and r.inside


def test_symlink_pointing_outside_counts_as_outside(project: Path, tmp_path: Path, ctx: ToolContext) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("secret")
    (project / "link.txt").symlink_to(secret)
    (project / "linkdir").symlink_to(tmp_path)
    assert not resolve_in_project("link.txt", ctx).inside
    assert not resolve_in_project("linkdir/outside.txt", ctx).inside
    assert resolve_in_project("link.txt", ctx).path == Path(os.path.realpath(secret))


def test_symlink_inside_to_inside_is_inside(project: Path, ctx: ToolContext) -> None:
    (project / "real.txt").write_text("x")
    (project / "alias.txt").symlink_to(project / "real.txt")
    r = resolve_in_project("alias.txt", ctx)
    assert r.inside and r.path == project / "real.txt"


def test_prefix_sibling_is_not_inside(project: Path, ctx: ToolContext) -> None:
    sibling = project.parent / (project.name + "-evil")
    sibling.mkdir()
    assert not is_inside(sibling / "f", ctx)


def test_add_dirs_are_inside(project: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    ctx = ToolContext(project_root=project, add_dirs=(extra,))
    assert is_inside(extra / "f.txt", ctx)


def test_refusal_unless_allowed(project: Path, ctx: ToolContext) -> None:
    r = resolve_in_project("/etc/hosts", ctx)
    msg = refuse_outside(r, ctx)
    assert msg and "outside the project" in msg
    ctx.allow_outside = True
    assert refuse_outside(r, ctx) is None


def test_display_path(project: Path, ctx: ToolContext) -> None:
    assert display_path(project / "a" / "b.py", ctx) == "a/b.py"
    assert display_path(Path("/etc/hosts"), ctx) == "/etc/hosts"


def test_nul_byte_is_never_inside(ctx: ToolContext) -> None:
    r = resolve_in_project("a\0b", ctx)
    assert not r.inside and refuse_outside(r, ctx)


def test_outside_approval_is_per_call(project: Path, tmp_path: Path, ctx: ToolContext) -> None:
    import asyncio

    from agentcli.tools.paths import outside_approved
    from agentcli.tools.read import ReadTool

    outside = tmp_path / "approved.txt"
    outside.write_text("ok\n")

    async def approved_call() -> str:
        with outside_approved():
            await asyncio.sleep(0)  # let the other call run while this one is approved
            return (await ReadTool().run({"file_path": str(outside)}, ctx)).content

    async def plain_call() -> str:
        return (await ReadTool().run({"file_path": str(outside)}, ctx)).content

    async def both() -> list[str]:
        return list(await asyncio.gather(approved_call(), plain_call()))

    approved, plain = asyncio.run(both())
    assert approved == "     1\tok"
    assert "outside the project" in plain
