"""A link flipped between the policy's check and the tool's use, by another process in a tight loop: the calls run
as the loop runs them (the policy decides, then the tool runs inside `outside_approved()`), and no Read, Write or
image Read ever lets outside content reach the model or creates a file outside."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.state import SessionState
from agentcli.permissions.loader import builtin_rules
from agentcli.permissions.policy import RulePolicy
from agentcli.tools.base import Tool, ToolContext, ToolOutput
from agentcli.tools.paths import outside_approved
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool

ROUNDS = 200  # calls the policy allowed (those it asked about do not count), within at most 20 × as many tries
FLIPPER = """
import os, sys
link, a, b = sys.argv[1:4]
tmp = link + ".flip"
print("up", flush=True)
while True:
    for target in (a, b):
        try:
            os.symlink(target, tmp)
            os.replace(tmp, link)
        except OSError:
            pass
"""


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path))
    root, outside = base / "proj", base / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "a.txt").write_text("inside text\n")
    (outside / "secret.txt").write_text("OUTSIDE-SECRET\n")
    return root, outside


def flipping(link: Path, a: Path, b: Path) -> Iterator[subprocess.Popen[str]]:
    with subprocess.Popen([sys.executable, "-c", FLIPPER, str(link), str(a), str(b)], stdout=subprocess.PIPE,
                          text=True) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "up\n"
            yield proc
        finally:
            proc.kill()


def as_the_loop_runs(policy: RulePolicy, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolOutput | None:
    """The policy decides; an allowed call runs approved, as agentcli.core.toolrun runs it. None: it asked."""
    if policy.check(tool, args).behavior != "allow":
        return None

    async def go() -> ToolOutput:
        with outside_approved():
            return await tool.run(args, ctx)

    return asyncio.run(go())


def session(root: Path) -> tuple[RulePolicy, ToolContext]:
    ctx = ToolContext(project_root=root, shell_cwd=root)
    policy = RulePolicy(ctx, builtin_rules(root), session=SessionState("acceptEdits"))
    policy.bind(ctx)
    return policy, ctx


def test_reads_through_a_flipping_link_never_see_outside(world: tuple[Path, Path]) -> None:
    root, outside = world
    policy, ctx = session(root)
    link = root / "link.txt"
    ran = 0
    for _ in flipping(link, root / "a.txt", outside / "secret.txt"):
        for _ in range(20 * ROUNDS):
            out = as_the_loop_runs(policy, ReadTool(), {"file_path": str(link)}, ctx)
            ran += out is not None
            assert out is None or "OUTSIDE-SECRET" not in out.content, out.content
            if ran >= ROUNDS:
                break
    assert ran >= ROUNDS


def test_writes_through_a_flipping_directory_never_create_outside(world: tuple[Path, Path]) -> None:
    root, outside = world
    policy, ctx = session(root)
    link = root / "d"
    ran = 0
    for _ in flipping(link, root / "sub", outside):
        for i in range(20 * ROUNDS):
            out = as_the_loop_runs(policy, WriteTool(), {"file_path": str(link / f"n{i}.txt"), "content": "x\n"}, ctx)
            ran += out is not None
            if ran >= ROUNDS:
                break
    assert ran >= ROUNDS
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "OUTSIDE-SECRET\n"


def test_image_reads_through_a_flipping_link_never_attach_outside(world: tuple[Path, Path]) -> None:
    from PIL import Image

    root, outside = world
    Image.new("RGB", (4, 4), "red").save(root / "in.png")
    Image.new("RGB", (4, 4), "blue").save(outside / "out.png")
    outside_bytes = (outside / "out.png").read_bytes()
    policy, ctx = session(root)
    ctx.model = _Sees()
    link = root / "pic.png"
    import base64

    ran = 0
    for _ in flipping(link, root / "in.png", outside / "out.png"):
        for _ in range(20 * ROUNDS):
            out = as_the_loop_runs(policy, ReadTool(), {"file_path": str(link)}, ctx)
            ran += out is not None
            for block in (out.metadata.get("attachments", []) if out is not None else []):
                assert base64.b64decode(block.data) != outside_bytes
            if ran >= ROUNDS:
                break
    assert ran >= ROUNDS


class _Sees:
    """A session model that takes images (the tool context's ModelInfo)."""

    model = "fake-model"
    accepts_images = True
