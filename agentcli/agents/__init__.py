"""Subagents: agent definitions as files (Claude Code's `.claude/agents/*.md` format), and the runner behind the
Task tools that runs child agents in the foreground, the background and in parallel."""
