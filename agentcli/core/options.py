"""What an `Agent` is configured with: its model and provider, limits, prices and windows, and the parts the
assembly plugs in (nested memory files, a structured-output tool, another model for compaction)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from agentcli.core.final import FinalOutput
from agentcli.llm.messages import TextBlock, ToolUseBlock, Usage
from agentcli.llm.request import Effort, Provider
from agentcli.record import record


class NestedMemory(Protocol):
    """Memory files in subdirectories, picked up as the agent works there (agentcli.assembly.memory)."""

    def __call__(self, paths: list[str], /) -> list[str]:
        """Texts of memory files newly applying to these tool paths."""
        ...

    def texts(self) -> list[str]:
        """Every nested memory text loaded so far (re-injected after a compaction)."""
        ...


def memory_for(memory: NestedMemory | None, calls: list[ToolUseBlock], shell_cwd: Path | None) -> list[TextBlock]:
    """Memory files of subdirectories the tools just worked in (`calls`, the shell's cwd), appended to the
    results once."""
    if memory is None:
        return []
    paths = [str(c.input[k]) for c in calls for k in ("file_path", "path") if isinstance(c.input.get(k), str)]
    if shell_cwd is not None:
        paths.append(str(shell_cwd))
    return [TextBlock(t) for t in memory(paths)]


@record(frozen=False)
class AgentOptions:
    model: str
    provider_name: str
    system_prompt: str = ""
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_tool_calls_per_turn: int = 50
    max_tokens: int = 8192
    effort: Effort | None = None
    cost_fn: Callable[[str, Usage], float] = lambda model, usage: 0.0
    context_window_fn: Callable[[str], int | None] = lambda model: None
    auto_compact_limit: int | None = None  # tokens; None: 80 % of the window (when it is known)
    compact_provider: Callable[[], tuple[Provider, str]] | None = None  # `compact_model`: another model
    nested_memory: NestedMemory | None = None
    subagent: bool = False  # a Task child: SubagentStop instead of Stop; no SessionStart/SessionEnd hooks
    final_output: FinalOutput | None = None  # --json-schema: the run ends only once it is given
    provider_label: str | None = None  # what SessionStarted names: a local host ("llamacpp") or profile, not the wire
    tools_unseen: bool = False  # the server's chat template drops the tools: the context meter leaves them out
    accepts_images_fn: Callable[[str], bool] = lambda model: False  # does this model take images (the catalog)?
    # The run does not end while a background subagent it started still runs (nobody is there to hear of it
    # later: `-p`, the SDK); its answer is the next turn's input, as Claude Code's <task-notification>.
    await_background: bool = False
    headless: bool = False  # -p / the SDK: no one to type /compact or /clear (errors suggest flags instead)
