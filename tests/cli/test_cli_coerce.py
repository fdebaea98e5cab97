"""Plain values skip typer's coercion (agentcli/cli/coerce.py) and give exactly typer's values and errors, and keep
pydantic out of a subcommand run that needs no conversion. Public typer names only: the day typer changes the
layout coerce.py leans on, the first test fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperArgument, TyperOption

from agentcli.cli.app import load_subcommand, root_command
from agentcli.cli.coerce import PlainArgument, PlainOption
from agentcli.cli.table import SUBCOMMANDS
from tests.cli.helpers import git_repo, imported_modules

SAMPLES: list[Any] = [None, "", "abc", "5", "-3", "007", "x5", "1.5", "markdown", "MARKDOWN", "json", "local",
                      "user", "stdio", "day", "True", "no", 0, 2.0, False, ("a", "b"), ["x"], (), ("5",)]


def _params(command: Any, parent: Any = None) -> list[tuple[Any, Any]]:
    ctx = typer.Context(command, parent=parent, **(command.context_settings or {}))
    found = [(command, p) for p in [*command.params, command.get_help_option(ctx)] if p is not None]
    for sub in getattr(command, "commands", {}).values():
        found += _params(sub, ctx)
    return found


def _outcome(process: Any, value: Any, ctx: Any) -> tuple[str, Any]:
    try:
        return "ok", process(ctx, value)
    except typer.TyperException as err:
        return type(err).__name__, err.exit_code, err.format_message()
    except typer.Exit as err:
        return "exit", err.exit_code


def test_every_parameter_is_processed_like_typer() -> None:
    commands = [root_command(), *(load_subcommand(name) for name in SUBCOMMANDS)]
    checked = 0
    for command in commands:
        for owner, param in _params(command):
            assert type(param) in (PlainOption, PlainArgument), (owner.name, param.name, type(param))
            typers = (TyperOption if isinstance(param, PlainOption) else TyperArgument).process_value
            for value in [*SAMPLES, param.default]:
                if (param.multiple or param.nargs == -1) != isinstance(value, tuple | list):
                    continue
                ctx = typer.Context(owner)
                assert _outcome(param.process_value, value, ctx) == \
                    _outcome(lambda c, v, p=param, t=typers: t(p, c, v), value, typer.Context(owner)), \
                    (owner.name, param.name, value)
                checked += 1
    assert checked > 500


def test_sessions_list_imports_no_pydantic(tmp_path: Path) -> None:
    from agentcli.session.store import open_session
    from tests.session.helpers import text_turn

    proj = git_repo(tmp_path / "proj", {"a.py": "a = 1\n"})
    s = open_session(proj, model="m1", provider="anthropic", name="bugfix")
    assert s.writer is not None
    text_turn(s.writer, "fix the bug", "fixed")
    s.close()
    for args in (["sessions", "list"], ["sessions", "list", "-n", "3", "--json"], ["sessions", "--help"],
                 ["sessions", "show", "bugfix"], ["completion", "--help"]):
        assert "pydantic" not in imported_modules(args, proj, {}), args


@pytest.mark.parametrize("args", [["sessions", "list", "-n", "x"], ["sessions", "export", "s", "yaml"]])
def test_a_value_that_needs_typer_still_gets_its_error(args: list[str], tmp_path: Path) -> None:
    from tests.cli.helpers import agentcli

    run = agentcli(args, git_repo(tmp_path / "proj", {"a.py": ""}), {})
    assert run.status == 2 and run.stderr.startswith("agentcli sessions: invalid ") and run.stderr.count("\n") == 1
