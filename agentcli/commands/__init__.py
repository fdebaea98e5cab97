"""Subcommands: `agentcli NAME …` is the typer app `app` of module `agentcli.commands.NAME`, registered in
`agentcli.cli.table.SUBCOMMANDS` and imported only when named. Each module also keeps `main(argv) -> int` (tests and
scripts call it in-process): `main = entry(app, "NAME")`.

A new subcommand is this module plus one line in SUBCOMMANDS:

    app = new_app("what it does")

    @app.command("list", help="…")
    def list_(json_: JsonFlag = False) -> int: …

    main = entry(app, "NAME")
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import typer

from agentcli.errors import AgentCliError

CONTEXT = {"help_option_names": ["-h", "--help"]}

DirectoryOption = Annotated[str | None, typer.Option(
    "-C", "--directory", metavar="DIR", show_default=False, help="the project directory (default: the current one)")]
JsonFlag = Annotated[bool, typer.Option("--json", metavar="", help="one JSON document")]


def new_app(help_text: str) -> typer.Typer:
    """A subcommand's typer app, with the settings every agentcli command shares (-h, no completion installer,
    no pretty tracebacks: errors are one line; plain help, as rich's costs ~75 ms of imports)."""
    return typer.Typer(help=help_text, add_completion=False, context_settings=CONTEXT, rich_markup_mode=None,
                       pretty_exceptions_enable=False, no_args_is_help=False)


def project_root(directory: str | None) -> Path:
    from agentcli import paths

    return paths.find_project_root(Path(directory) if directory else Path.cwd())


def entry(app: typer.Typer, name: str) -> Callable[[Sequence[str]], int]:
    """`main(argv) -> int` for a subcommand module: its app run in-process, always an exit status."""

    def main(argv: Sequence[str]) -> int:
        from agentcli.cli.app import run_subcommand

        return run_subcommand(app, argv, name)

    main.__doc__ = f"`agentcli {name} ARGV…` in-process; returns the exit status."
    return main


def reporting_errors(call: Callable[[], int]) -> int:
    """Run a subcommand body: an AgentCliError becomes one line on stderr and its exit status; a closed pipe
    (`agentcli sessions list | head`) is not an error."""
    try:
        return call()
    except AgentCliError as err:
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    except BrokenPipeError:
        return 0
