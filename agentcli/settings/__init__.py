"""What the user configured: settings layers (config), the one TOML writer, trust of a project's shared
settings, tool presets, memory files (AGENTS.md …) and custom slash commands."""
