"""Plugins in Claude Code's format (`.claude-plugin/plugin.json`; Codex's `.codex-plugin/plugin.json` where it maps
onto the same parts): one bundle of commands, agents, skills, hooks and MCP servers, installed from a
marketplace (`.claude-plugin/marketplace.json`), pinned by content digest, namespaced `plugin:name`."""
