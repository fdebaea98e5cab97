"""What the user configured: typed sections (sections), each layer read and checked (config, schema, tomlfile),
Claude Code's own files (claude), the one TOML writer, trust of a project's own files, tool presets and custom
slash commands. Building the prompt from memory files is agentcli.assembly.memory's."""
