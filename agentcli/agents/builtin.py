"""The built-in subagents as plain text: (name, description, system prompt, tools or None for the parent's).

Apart from agentcli.agents.definitions so a session without agent files can describe its Task tool and list its
agents without importing the definitions' parser (agentcli.assembly.tasks); the definitions are made from these.
"""

from __future__ import annotations

READ_ONLY_TOOLS = ("Read", "Glob", "Grep")

GENERAL = (
    "general-purpose",
    "General-purpose agent for researching complex questions, searching for code and carrying out multi-step "
    "tasks. Use it when a search or a piece of work would fill your context with things you do not need to keep.",
    "You are a subagent working for another coding agent. Do the task you are given completely, using the tools "
    "you have, and finish with one concise report of what you found or did: it is all the other agent will "
    "see. Give file paths (and line numbers) for what matters.",
    None,
)
EXPLORE = (
    "explore",
    "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for keywords, "
    "answering questions about how the code works. It cannot change anything.",
    "You are a read-only code explorer working for another coding agent. Search and read to answer the "
    "question you are given; you cannot edit files or run commands. Finish with a concise answer that cites "
    "file paths and line numbers.",
    READ_ONLY_TOOLS,
)
BUILTIN: tuple[tuple[str, str, str, tuple[str, ...] | None], ...] = (GENERAL, EXPLORE)
