"""The command line. `table` declares it (the one table of root flags, the subcommands); `flags` reads a valid argv
with that table alone (`-p` and the REPL start without typer); `app` builds the typer command tree from it (help,
errors, subcommands), with `coerce` keeping pydantic out of values that need no conversion; `entry` turns the values
into settings and a front end; `compat` holds Claude Code's flags; `completion` the shell scripts. Importing this
package imports nothing else."""
