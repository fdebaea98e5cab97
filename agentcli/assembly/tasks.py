"""The main agent's Task tool and subagent runner, made so that a session pays for subagents only when it runs
one (issue 25, speed): the runner (agentcli.agents.runner, with agentcli.assembly.subagents, which builds the
children) is made at the first Task call; without agent files, `--agents` or plugins' agents, the definitions are
the built-ins, listed from plain text (agentcli.agents.builtin) without the definitions' parser."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from agentcli.agents import builtin
from agentcli.settings.extensions import agent_files_present
from agentcli.tools.registry import task_tool_for

if TYPE_CHECKING:
    from agentcli.agents.runner import BackgroundTask, SubagentRunner
    from agentcli.assembly.selection import Selection
    from agentcli.core.events import RunResult
    from agentcli.core.loop import Agent
    from agentcli.core.permissions import Approver
    from agentcli.settings.config import Settings


class Builtins(Mapping[str, Any]):
    """The built-in definitions by name (agentcli.agents.definitions.BUILTIN): their names are known at once (the
    session's start lists them), the definitions themselves are made when first looked at."""

    def __getitem__(self, name: str) -> Any:
        from agentcli.agents.definitions import BUILTIN

        return {d.name: d for d in BUILTIN}[name]

    def __iter__(self) -> Iterator[str]:
        return iter([spec[0] for spec in builtin.BUILTIN])

    def __len__(self) -> int:
        return len(builtin.BUILTIN)


class RunnerOnUse:
    """The session's subagent runner (agentcli.agents.runner.SubagentRunner), made when a Task call first needs
    it; until then no subagent runs, so there is nothing to wait for, stop or close."""

    def __init__(self, definitions: Mapping[str, Any], make: Callable[[], SubagentRunner],
                 inbox: list[object]) -> None:
        self.definitions = definitions
        self._make = make
        self._inbox = inbox
        self._runner: SubagentRunner | None = None

    def runner(self) -> SubagentRunner:
        if self._runner is None:
            self._runner = self._make()
        return self._runner

    @property
    def background(self) -> Mapping[str, BackgroundTask]:
        return self._runner.background if self._runner is not None else {}

    async def run(self, name: str, prompt: str) -> RunResult:
        return await self.runner().run(name, prompt)

    def start(self, name: str, description: str, prompt: str) -> BackgroundTask:
        return self.runner().start(name, description, prompt)

    async def stop(self, task_id: str) -> BackgroundTask | None:
        return await self._runner.stop(task_id) if self._runner is not None else None

    async def settle(self) -> bool:
        """As SubagentRunner.settle: with no child started, whether a note already waits in the inbox."""
        return await self._runner.settle() if self._runner is not None else bool(self._inbox)

    async def aclose(self) -> None:
        if self._runner is not None:
            await self._runner.aclose()


def definitions_for(settings: Settings) -> tuple[dict[str, Any], list[str]]:
    """The definitions a session's Task tool may start (built-ins, agent files, `--agents`, plugins' agents), and
    warnings about skipped definition files and unknown tool names."""
    from agentcli.agents.definitions import AgentDefinition, load_definitions, with_known_tools

    definitions, warnings = load_definitions(settings.project_root)
    if settings.setting_sources is not None:  # --setting-sources: agent files of the left-out layers stay out
        definitions = {n: d for n, d in definitions.items() if d.source in ("builtin", *settings.setting_sources)}
    for d in settings.agents:
        if isinstance(d, AgentDefinition):
            definitions[d.name], unknown = with_known_tools(d)
            warnings += unknown
    return definitions, warnings


def attach(agent: Agent, settings: Settings, sel: Selection, approver: Approver,
           parent_session: str | None) -> list[str]:
    """Give the main agent its Task tool and subagent runner; returns warnings about skipped definition files."""
    definitions: Mapping[str, Any]
    if settings.agents or agent_files_present(settings.project_root):
        definitions, warnings = definitions_for(settings)
        about = [(d.name, d.description) for d in definitions.values()]
    else:  # the built-ins alone (--setting-sources never leaves them out)
        definitions, warnings = Builtins(), []
        about = [(spec[0], spec[1]) for spec in builtin.BUILTIN]
    agent.registry.add(task_tool_for(about))
    hooks, ctx = agent.hooks, agent.ctx

    def make() -> SubagentRunner:
        from agentcli.assembly.subagents import Family, make_runner

        family = Family(settings, sel, dict(definitions), approver, hooks, parent_session)
        # the policy in force when a child starts: a /preset switch brings another
        return make_runner(family, lambda: agent.policy, ctx, agent.registry.tools, 0)

    ctx.subagents = RunnerOnUse(definitions, make, ctx.inbox)
    return warnings
