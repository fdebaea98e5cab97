"""The built-in tools' specs (agentcli/tools/specs.py) and their implementations cannot drift apart, and the
registry's `BuiltinTool` behaves as the implementation it stands for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.base import ToolContext
from agentcli.tools.names import BUILTIN_TOOLS, DEFAULT_TOOLS
from agentcli.tools.registry import BuiltinTool, ToolRegistry, load_tool, task_tool_for
from agentcli.tools.specs import SPECS, describe
from tests.tools.conftest import run

SPEC_FIELDS = ("name", "description", "input_schema", "read_only", "destructive", "edits_files", "timeout_s")


def test_every_built_in_tool_has_a_spec_in_the_same_order() -> None:
    assert list(SPECS) == list(BUILTIN_TOOLS)


@pytest.mark.parametrize("name", list(BUILTIN_TOOLS))
def test_a_spec_is_what_its_implementation_exposes(name: str) -> None:
    real = load_tool(name)
    assert type(real).__name__ == BUILTIN_TOOLS[name].partition(":")[2]
    for field in SPEC_FIELDS:
        assert getattr(real, field, None) == getattr(SPECS[name], field), f"{name}.{field}"
        assert getattr(BuiltinTool(SPECS[name]), field) == getattr(SPECS[name], field), f"{name}.{field}"


def test_the_registry_hands_out_the_same_tool_objects_turn_after_turn() -> None:
    registry = ToolRegistry(DEFAULT_TOOLS)
    first = registry.tools()
    assert [t.name for t in first] == list(DEFAULT_TOOLS)
    assert all(a is b for a, b in zip(first, registry.tools(), strict=True))


def test_a_built_in_tool_makes_its_implementation_once_and_runs_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    tool = ToolRegistry(["Read"]).tools()[0]
    assert isinstance(tool, BuiltinTool)
    out = run(tool, {"file_path": str(tmp_path / "a.txt")}, ToolContext(project_root=tmp_path))
    assert not out.is_error and "alpha" in out.content
    made = tool.implementation()
    assert type(made).__name__ == "ReadTool" and tool.implementation() is made


def test_an_attribute_only_the_implementation_has_is_read_from_it() -> None:
    grep = BuiltinTool(SPECS["Grep"])
    made: Any = grep.implementation()
    assert grep.rg_path == made.rg_path
    with pytest.raises(AttributeError):
        grep.no_such_attribute  # noqa: B018


def test_the_task_tool_lists_the_agents_it_can_start_in_its_implementation_too() -> None:
    agents = [("reviewer", "reviews a diff"), ("general-purpose", "anything")]
    task = task_tool_for(agents)
    assert task.description == describe(agents) != SPECS["Task"].description
    assert "- reviewer: reviews a diff" in task.description
    assert task.implementation().description == task.description
    assert BuiltinTool(SPECS["Task"]).implementation().description == SPECS["Task"].description
