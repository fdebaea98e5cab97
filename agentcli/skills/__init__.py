"""Agent Skills: folders holding a `SKILL.md` (YAML front matter `name`, `description`, optional `allowed-tools`)
and the scripts and references it needs, found where Claude Code, Codex and the others look. Only names and
descriptions are advertised until the model loads one with the `Skill` tool (agentcli.skills.tool)."""
