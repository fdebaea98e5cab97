"""The house plan's wall between the agent and its front ends, checked on the source of every front end: they
read the `Agent` through its small interface and change it only through its command API. None reaches into its
tool context (`agent.ctx`: the state, sandbox and subagents behind the tools) or assigns to the agent."""

from __future__ import annotations

import ast
from pathlib import Path

import agentcli

PACKAGE = Path(agentcli.__file__).parent
FRONT_ENDS = ("ui", "output", "sdkio", "commands", "driver", "headless.py", "api.py")


def front_end_sources() -> list[Path]:
    """Every module of the front ends' rooms (and the front-end modules at the package root)."""
    paths = [PACKAGE / room for room in FRONT_ENDS]
    return [p for path in paths for p in ([path] if path.is_file() else sorted(path.rglob("*.py")))]


def _is_agent(node: ast.expr) -> bool:
    """`agent`, `self.agent`, `repl.agent`, `session.agent`, `built.agent` …: an expression naming an agent."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name == "agent" or name.endswith("_agent")


def _reaches_agent(node: ast.expr) -> bool:
    """An attribute or item chain that passes through an agent: `agent.x`, `self.agent.options.y`, `agent.z[k]`."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        if _is_agent(node.value):
            return True
        node = node.value
    return False


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        found = []
        for target in node.targets:
            found += list(target.elts) if isinstance(target, ast.Tuple | ast.List) else [target]
        return found
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    return []


def _around(call: ast.Call) -> bool:
    """`setattr(agent, …)`, `delattr(agent, …)` or `getattr(agent, "ctx")`."""
    if not isinstance(call.func, ast.Name) or len(call.args) < 2 or not _is_agent(call.args[0]):
        return False
    name = call.args[1].value if isinstance(call.args[1], ast.Constant) else None
    return call.func.id in ("setattr", "delattr") or (call.func.id == "getattr" and name == "ctx")


def breaches(source: str) -> list[tuple[int, str]]:
    """(line, what) for each place `source` reaches into an agent's context or assigns to an agent."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "ctx" and _is_agent(node.value):
            found.append((node.lineno, f"{ast.unparse(node)}: reads the agent's tool context"))
        elif isinstance(node, ast.Call) and _around(node):
            found.append((node.lineno, f"{ast.unparse(node)}: goes around the agent's interface"))
        for target in _targets(node):
            if _reaches_agent(target):
                found.append((node.lineno, f"{ast.unparse(target)} = …: assigns to the agent"))
    return sorted(found)


def test_front_ends_use_the_agents_interface() -> None:
    broken = []
    for path in front_end_sources():
        for line, what in breaches(path.read_text()):
            broken.append(f"{path.relative_to(PACKAGE)}:{line}: {what}")
    assert broken == []


def test_the_check_sees_each_kind_of_breach() -> None:
    source = "\n".join([
        "x = agent.ctx.state.get('mcp')",
        "self.agent.ctx.sandbox.close()",
        "session.agent.ctx.state['sdk_channel'] = channel",
        "agent.options.model = 'm'",
        "self.agent.messages += []",
        "repl.agent.policy, y = p, 1",
        "del agent.sink",
        "getattr(agent, 'ctx')",
        "setattr(self.agent, 'provider', p)",
        "child_agent.ctx",
    ])
    assert [line for line, _ in breaches(source)] == [1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10]


def test_the_check_lets_the_interface_through() -> None:
    source = "\n".join([
        "agent = repl.agent",
        "self.agent = await build()",
        "images = agent.accepts_images",
        "manager = session.agent.mcp",
        "await agent.switch_model(p, 'm', 'openai')",
        "ctx = tool_context(settings)",
        "ctx.state['x'] = 1",
        "repl.status.model = agent.options.model",
    ])
    assert breaches(source) == []


def test_front_ends_switch_models_one_way() -> None:
    """/model and the SDK's set_model both go through agentcli.assembly.switching (the credentials check, the
    dropped-tools flag): no front end calls `Agent.switch_model` itself."""
    direct = []
    for path in front_end_sources():
        direct += [f"{path.relative_to(PACKAGE)}:{node.lineno}" for node in ast.walk(ast.parse(path.read_text()))
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and node.func.attr == "switch_model" and _reaches_agent(node.func)]
    assert direct == []
