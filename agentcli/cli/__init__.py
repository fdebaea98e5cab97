"""The command line: entry (flags to a front end), the typer command tree, Claude Code flag compatibility and
shell completion. Importing this package imports nothing else."""
