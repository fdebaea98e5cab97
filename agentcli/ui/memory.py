"""`/memory`: which memory files (AGENTS.md …) this session loaded, and `/memory edit` to change one in the
user's editor; the system prompt is rebuilt from the files afterwards."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli import paths

if TYPE_CHECKING:
    from agentcli.ui.host import ReplHost


def memory_files(repl: ReplHost) -> list[Path]:
    from agentcli.assembly.memory import load_memory

    return list(load_memory(repl.cwd, repl.root).files)


def edit_target(repl: ReplHost, which: str) -> Path | None:
    """`user` → $AGENTCLI_HOME/AGENTS.md; `project` (the default) → the project's memory file; N → the Nth
    listed file."""
    from agentcli.assembly.memory import find_memory_file

    if which in ("", "project"):
        return find_memory_file(repl.root) or repl.root / "AGENTS.md"
    if which == "user":
        return find_memory_file(paths.home()) or paths.home() / "AGENTS.md"
    files = memory_files(repl)
    if which.isdigit() and 1 <= int(which) <= len(files):
        return files[int(which) - 1]
    return None


def editor_command() -> list[str]:
    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]


async def memory_command(repl: ReplHost, args: str) -> None:
    verb, _, rest = args.partition(" ")
    if verb == "edit":
        await _edit(repl, rest.strip())
        return
    if verb:
        repl.renderer.notice("Usage: /memory, or /memory edit [user|project|N]", style="yellow")
        return
    files = memory_files(repl)
    if not files:
        repl.renderer.notice("No memory files loaded. Add an AGENTS.md at the project root (/memory edit, or /init).")
        return
    listed = "\n".join(f"  {i}. {f}" for i, f in enumerate(files, 1))
    repl.renderer.notice(f"Memory files loaded into the system prompt:\n{listed}\n"
                         "Edit one with /memory edit [user|project|N]", style="")


async def _edit(repl: ReplHost, which: str) -> None:
    target = edit_target(repl, which)
    if target is None:
        repl.renderer.notice(f"No memory file {which!r}: /memory lists them", style="yellow")
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    command = [*editor_command(), str(target)]
    repl.renderer.notice(f"Opening {target} in {command[0]} …")
    try:
        status = await asyncio.to_thread(subprocess.run, command, check=False)
    except OSError as err:
        repl.renderer.notice(f"✗ cannot start the editor {command[0]}: {err} — set $EDITOR", style="bold red")
        return
    if status.returncode != 0:
        repl.renderer.notice(f"The editor exited with status {status.returncode}; nothing reloaded.", style="yellow")
        return
    agent = repl.agent
    if agent is not None:
        from agentcli.assembly.runtime import build_prompt, load_preset

        agent.set_system_prompt(build_prompt(repl.settings, load_preset(repl.settings)))
    repl.renderer.notice(f"Saved {target}.\nThe memory files apply from the next message.")
