"""Deferred coercion (agentcli/cli/coerce.py) gives exactly typer's values and errors, and keeps pydantic out of a
subcommand run that needs no conversion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer import _click as click
from typer._coercion import build_runtime_param
from typer.core import _TyperParameter

from agentcli.cli.app import load_subcommand, root_command
from agentcli.cli.coerce import Deferred
from agentcli.cli.entry import SUBCOMMANDS
from tests.cli.helpers import git_repo, imported_modules

SAMPLES: list[Any] = [None, "", "abc", "5", "-3", "007", "x5", "1.5", "markdown", "MARKDOWN", "json", "local",
                      "user", "stdio", "day", "True", "no", 0, 2.0, False, ("a", "b"), ["x"], (), ("5",)]


def _params(command: click.Command) -> list[tuple[click.Command, _TyperParameter]]:
    ctx = click.Context(command)
    help_option = command.get_help_option(ctx)
    found = [(command, p) for p in [*command.params, *([help_option] if help_option else [])]
             if isinstance(p, _TyperParameter)]
    for sub in getattr(command, "commands", {}).values():
        found += _params(sub)
    return found


def _outcome(run: Any, value: Any, param: _TyperParameter, ctx: click.Context) -> tuple[str, Any]:
    try:
        return "ok", run.coerce(value, param=param, ctx=ctx)
    except click.exceptions.BadParameter as err:
        return "error", err.format_message()


def test_every_parameter_coerces_like_typer() -> None:
    commands = [root_command(), *(load_subcommand(name) for name in SUBCOMMANDS)]
    checked = 0
    for command in commands:
        for owner, param in _params(command):
            assert isinstance(param._runtime_param, Deferred), (owner.name, param.name)
            real = build_runtime_param(param.type_descriptor)
            ctx = click.Context(owner)
            for value in [*SAMPLES, param.default]:
                if (param.multiple or param.nargs == -1) != isinstance(value, tuple | list):
                    continue
                deferred = Deferred(param.type_descriptor.parameter_info, param.type_descriptor.annotation,
                                    param.type_descriptor)
                assert _outcome(deferred, value, param, ctx) == _outcome(real, value, param, ctx), \
                    (owner.name, param.name, value)
                checked += 1
    assert checked > 500


def test_sessions_list_imports_no_pydantic(tmp_path: Path) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    for args in (["sessions", "list"], ["sessions", "list", "-n", "3", "--json"], ["sessions", "--help"]):
        assert "pydantic" not in imported_modules(args, proj, {}), args


@pytest.mark.parametrize("args", [["sessions", "list", "-n", "x"], ["sessions", "export", "s", "yaml"]])
def test_a_value_that_needs_typer_still_gets_its_error(args: list[str], tmp_path: Path) -> None:
    from tests.cli.helpers import agentcli

    run = agentcli(args, git_repo(tmp_path / "proj", {"a.py": ""}), {})
    assert run.status == 2 and run.stderr.startswith("agentcli sessions: invalid ") and run.stderr.count("\n") == 1
