"""Permissions: rules in Claude Code's syntax, a shell parser, the read-only allowlist and `RulePolicy`.

Entry points: `agentcli.permissions.loader.load_policy(...)` builds the session's policy from config files,
presets and flags; `agentcli.permissions.suggest.suggest_rules(...)` offers rules to remember at a prompt.
"""
