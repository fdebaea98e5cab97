"""Fixtures for the built-in tools: a real temporary project and a ToolContext rooted in it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.base import Tool, ToolContext, ToolOutput


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return Path(os.path.realpath(root))


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(project_root=project)


def run(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    """Run one tool call to completion, as the loop would."""
    return asyncio.run(tool.run(args, ctx))
