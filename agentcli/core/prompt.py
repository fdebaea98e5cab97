"""The system prompt: who the agent is, where it works, and the user's memory files and additions."""

from __future__ import annotations

import os
import time
from pathlib import Path

BASE = """You are agentcli, a coding agent working in the user's terminal, in their project.
Use the tools to read, search, edit files and run commands; do the task rather than describing it.
- Read a file before editing it. Prefer Edit for changes to existing files; Write for new files.
- Keep changes focused on the task. Follow the project's existing style and conventions.
- Run the project's tests or the command that shows the problem to check your work when you can.
- If a tool call is denied, do not repeat it as it was: adjust, or explain what you need and stop.
- When done, answer briefly: what you changed and how you checked it."""

# What `/init` sends (the REPL's and ACP's)
INIT_PROMPT = """Please analyse this codebase and write an AGENTS.md file at the project root for future agents.
Cover: the commands to build, lint and run the tests (including a single test); the high-level architecture
that takes reading several files to understand; and the conventions a contributor must follow. Keep it short
and specific to this repository, no generic advice. If an AGENTS.md (or CLAUDE.md, .cursorrules,
.github/copilot-instructions.md, README.md) exists, build on what it says and improve it."""


def system_prompt(
    cwd: Path,
    project_root: Path,
    *,
    memory: str = "",
    append: str | None = None,
    replace: str | None = None,
    addendum: str | None = None,
) -> str:
    """Build the system prompt. `replace` (--system-prompt) swaps the base text; `append` and a preset's
    `addendum` are added at the end; `memory` holds AGENTS.md-style files already joined."""
    parts = [replace if replace is not None else BASE]
    parts.append(
        "Environment:\n"
        f"- working directory: {cwd}\n"
        f"- project root: {project_root}\n"
        f"- platform: {_platform()}\n"
        f"- date: {time.strftime('%Y-%m-%d')}"
    )
    if memory:
        parts.append(memory)
    if addendum:
        parts.append(addendum)
    if append:
        parts.append(append)
    return "\n\n".join(parts)


def _platform() -> str:
    """`platform.system() platform.release()` without importing platform (it is slow to import)."""
    if hasattr(os, "uname"):
        u = os.uname()
        return f"{u.sysname} {u.release}"
    import platform

    return f"{platform.system()} {platform.release()}"
