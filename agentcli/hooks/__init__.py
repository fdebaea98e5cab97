"""Claude Code-compatible hooks: user commands run at points of the agent's life (before and after tools, on a
prompt, when the agent stops …) that can block, allow, rewrite or add context. Imported only when hooks are
configured. The contract (JSON on stdin; exit 0 / 2 / other; JSON on stdout) is Claude Code's; see docs/hooks.md.
"""
