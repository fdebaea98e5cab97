"""A link flipped between the policy's check and the tool's use, by another process in a tight loop: the calls run
as the loop runs them (the policy decides, then the tool runs inside `outside_approved()`), and no Read, Write or
image Read ever lets outside content reach the model or creates a file outside.

How often the link points inside at a check is the scheduler's business: under load the flipper stays put for whole
time slices, and an allowed call (the tool runs) costs more than an asked one, so a fixed number of tries allowed
only ~4 % of calls on a loaded machine. The calls go on until the policy allowed ROUNDS and asked at least once;
time is only the give-up bound."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
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

ROUNDS = 200  # calls the policy allowed (those it asked about do not count)
GIVE_UP = 120.0  # seconds; a quiet machine needs ~2
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
def world(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    # In memory where there is a tmpfs: each Write's two fsyncs took ~8 ms on a busy disk, most of the test's time.
    shm = Path("/dev/shm")
    base = Path(os.path.realpath(tempfile.mkdtemp(dir=shm if os.access(shm, os.W_OK) else tmp_path)))
    root, outside = base / "proj", base / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "a.txt").write_text("inside text\n")
    (outside / "secret.txt").write_text("OUTSIDE-SECRET\n")
    try:
        yield root, outside
    finally:
        shutil.rmtree(base)


def flipping(link: Path, a: Path, b: Path) -> Iterator[subprocess.Popen[str]]:
    with subprocess.Popen([sys.executable, "-c", FLIPPER, str(link), str(a), str(b)], stdout=subprocess.PIPE,
                          text=True) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "up\n"
            yield proc
        finally:
            proc.kill()


async def as_the_loop_runs(policy: RulePolicy, tool: Tool, args: dict[str, Any],
                           ctx: ToolContext) -> ToolOutput | None:
    """The policy decides; an allowed call runs approved, as agentcli.core.toolrun runs it. None: it asked."""
    if policy.check(tool, args).behavior != "allow":
        return None
    with outside_approved():
        return await tool.run(args, ctx)


def until_allowed(policy: RulePolicy, tool: Tool, ctx: ToolContext, args_for: Callable[[int], dict[str, Any]],
                  seen: Callable[[ToolOutput], None]) -> None:
    """Calls (in one event loop) until the policy allowed ROUNDS of them and asked about one; `seen` judges each
    allowed call's output."""

    async def go() -> None:
        ran = tries = 0
        deadline = time.monotonic() + GIVE_UP
        while ran < ROUNDS or ran == tries:
            assert time.monotonic() < deadline, f"{ran} of {tries} calls allowed in {GIVE_UP} s"
            out = await as_the_loop_runs(policy, tool, args_for(tries), ctx)
            tries += 1
            if out is not None:
                ran += 1
                seen(out)

    asyncio.run(go())


def session(root: Path) -> tuple[RulePolicy, ToolContext]:
    ctx = ToolContext(project_root=root, shell_cwd=root)
    policy = RulePolicy(ctx, builtin_rules(root), session=SessionState("acceptEdits"))
    policy.bind(ctx)
    return policy, ctx


def test_reads_through_a_flipping_link_never_see_outside(world: tuple[Path, Path]) -> None:
    root, outside = world
    policy, ctx = session(root)
    link = root / "link.txt"

    def seen(out: ToolOutput) -> None:
        assert "OUTSIDE-SECRET" not in out.content, out.content

    for _ in flipping(link, root / "a.txt", outside / "secret.txt"):
        until_allowed(policy, ReadTool(), ctx, lambda i: {"file_path": str(link)}, seen)


def test_writes_through_a_flipping_directory_never_create_outside(world: tuple[Path, Path]) -> None:
    root, outside = world
    policy, ctx = session(root)
    link = root / "d"
    for _ in flipping(link, root / "sub", outside):
        until_allowed(policy, WriteTool(), ctx, lambda i: {"file_path": str(link / f"n{i}.txt"), "content": "x\n"},
                      lambda out: None)
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

    def seen(out: ToolOutput) -> None:
        for block in out.metadata.get("attachments", []):
            assert base64.b64decode(block.data) != outside_bytes

    for _ in flipping(link, root / "in.png", outside / "out.png"):
        until_allowed(policy, ReadTool(), ctx, lambda i: {"file_path": str(link)}, seen)


class _Sees:
    """A session model that takes images (the tool context's ModelInfo)."""

    model = "fake-model"
    accepts_images = True
