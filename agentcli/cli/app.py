"""The command tree, built by typer: the root command from `agentcli.cli.table.ROOT_FLAGS`, and one lazily imported
typer app per subcommand (`agentcli.commands.NAME.app`, registered in `agentcli.cli.table.SUBCOMMANDS`).

`dispatch(argv)` parses and either returns the root's option values (the caller runs the session; typer's part
ends at parsing) or an exit status (help, version, a subcommand's own status, a usage error). Every usage error
is one line on stderr, `agentcli: no such option --modle (did you mean --model?) [usage]`, and exit status 2.

Only typer's public names are used. typer keeps its own copy of click private, so click objects are typed `Any`
here; every click error is a `typer.TyperException`, and its kind (no such option, missing, bad value) is read
from what it carries. tests/cli/test_bad_input_e2e.py and test_command_tree.py word every kind through this.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperArgument, TyperGroup

from agentcli.cli.flags import ArgvError, Flag, closest, normalize
from agentcli.cli.table import EXAMPLES, EXIT_STATUSES, ROOT_FLAGS, SUBCOMMANDS
from agentcli.version import __version__

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def usage_line(prog: str, message: str, suggestion: str | None = None) -> str:
    hint = f" (did you mean {suggestion}?)" if suggestion else ""
    return f"{prog}: {message}{hint} [usage]\n"


def click_error_line(err: typer.TyperException, prog: str = "agentcli") -> str:
    """A click/typer usage error as the one line every agentcli usage error is."""
    option_name = getattr(err, "option_name", None)
    if isinstance(option_name, str) and hasattr(err, "possibilities"):  # no such option
        possibilities: list[str] = getattr(err, "possibilities", None) or []
        near = possibilities[0] if possibilities else None
        ctx = getattr(err, "ctx", None)
        if near is None and ctx is not None:
            near = closest(option_name, [o for p in ctx.command.params for o in getattr(p, "opts", [])])
        return usage_line(prog, f"no such option {option_name}", near)
    if isinstance(err, typer.BadParameter) and hasattr(err, "param_type"):  # a missing parameter
        return usage_line(prog, _one_line(err.format_message()))
    if isinstance(err, typer.BadParameter) and err.param is not None:
        name = (getattr(err.param, "opts", None) or [err.param.name])[0]
        detail = _one_line(err.message.removeprefix("Value error, "))
        kind = "choice" if "is not one of" in detail else "value"
        return usage_line(prog, f"invalid {kind} for {name}: {detail}")
    return usage_line(prog, _one_line(err.format_message()))


def _one_line(text: str) -> str:
    """Click's sentence as a fragment of our line: one line, lower case first word, no final period."""
    line = " ".join(text.split()).rstrip(".?")
    if ". Did you mean " in line:
        line = line.replace(". Did you mean ", " (did you mean ") + "?)"
    return line[:1].lower() + line[1:] if line[1:2].islower() else line


def get_command(app: typer.Typer) -> Any:
    """typer's click command for `app`, its parameters coerced without pydantic where no coercion is needed
    (agentcli.cli.coerce)."""
    from agentcli.cli.coerce import skip_plain_coercion

    return skip_plain_coercion(typer.main.get_command(app))


def load_subcommand(name: str) -> Any:
    """The click command of `agentcli NAME`: its module's typer `app`, or, for a module that only has
    `main(argv) -> int`, a pass-through command that hands it the rest of argv."""
    module = importlib.import_module(f"agentcli.commands.{name}")
    app = getattr(module, "app", None)
    if isinstance(app, typer.Typer):
        cmd = get_command(app)
        cmd.name = name
        if not cmd.help:
            cmd.help = SUBCOMMANDS.get(name, "")
        return cmd
    main: Callable[[list[str]], int] = module.main
    passthrough = typer.Typer(add_completion=False)

    @passthrough.command(name=name, help=SUBCOMMANDS.get(name, ""), add_help_option=False,
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def _run(ctx: typer.Context) -> int:
        return main(list(ctx.args))

    return get_command(passthrough)


class RootGroup(TyperGroup):
    """`agentcli [OPTIONS] [PROMPT]`, whose help also lists `agentcli COMMAND …` without importing any
    subcommand module. A word names a subcommand only in first place (dispatch); anywhere else it is the prompt."""

    allow_interspersed_args = True
    allow_extra_args = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return load_subcommand(cmd_name) if cmd_name in SUBCOMMANDS else None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # The root's own options and prompt: no word here names a subcommand (dispatch runs those directly), so the
        # plain command's parsing (TyperGroup's base) rather than the group's, which would take one as a command.
        parse: Callable[[Any, list[str]], list[str]] = super(TyperGroup, self).parse_args
        return parse(ctx, args)

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """Options in their panels, then the commands, examples and exit statuses. Plain text through click's
        formatter: typer's rich help imports rich.markdown (~75 ms), which would put `--help` over its budget."""
        panels: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                panel = "Arguments" if isinstance(param, TyperArgument) else (
                    getattr(param, "rich_help_panel", None) or "Options")
                panels.setdefault(panel, []).append(record)
        for title, rows in panels.items():
            with formatter.section(title):
                formatter.write_dl(rows)
        with formatter.section("Commands (agentcli COMMAND --help)"):
            formatter.write_dl(list(SUBCOMMANDS.items()))
        with formatter.section("Examples"):
            pad = " " * formatter.current_indent
            formatter.write("".join(f"{pad}{command}\n{pad}    {what}\n" for command, what in EXAMPLES))
        with formatter.section("Exit statuses"):
            formatter.write_dl(list(EXIT_STATUSES))


def _annotation(f: Flag) -> Any:
    base: Any = Literal[f.choices] if f.choices else f.type
    if f.kind == "switch":
        return bool
    if f.kind in ("many", "append"):
        return list[base] | None
    return base | None


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"{__version__} (agentcli)\n")
        raise typer.Exit(0)


def _help(ctx: typer.Context, value: bool) -> None:
    if value:
        sys.stdout.write(ctx.get_help() + "\n")
        raise typer.Exit(0)


def _parameter(f: Flag) -> inspect.Parameter:
    names = list(f.names)
    if f.kind in ("help", "version"):
        # Declared here rather than left to typer, so they sit in their panel like every other flag.
        option = typer.Option(*names, help=f.help, rich_help_panel=f.panel, is_eager=True, metavar="",
                              callback=_help if f.kind == "help" else _version)
        return inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=False,
                                 annotation=Annotated[bool, option])
    # A switch shows no value type (typer would print `<bool>`).
    metavar = "" if f.kind == "switch" else (f.metavar or None)
    option = typer.Option(*names, help=f.help, rich_help_panel=f.panel, metavar=metavar, show_default=False)
    default = False if f.kind == "switch" else None
    return inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[_annotation(f), option])


def _root_callback(flags: Sequence[Flag]) -> Callable[..., Any]:
    """The root's typer callback, its signature made from the table: it returns the option values it got
    (without a subcommand) so the caller runs the session outside typer."""

    def root(ctx: typer.Context, **values: Any) -> dict[str, Any] | None:
        return None if ctx.invoked_subcommand else values

    prompt = inspect.Parameter(
        "prompt", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
        annotation=Annotated[str | None, typer.Argument(
            metavar="PROMPT", show_default=False,
            help="the task (with -p: run headless; without: sent when the interactive session starts)")])
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context), prompt]
    params += [_parameter(f) for f in flags]
    root.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return root


def build_app(flags: Sequence[Flag] = ROOT_FLAGS) -> typer.Typer:
    """The root typer app: options in panels from the table, the subcommands, examples and exit statuses."""
    app = typer.Typer(
        name="agentcli", cls=RootGroup, add_completion=False, rich_markup_mode=None,
        context_settings={**CONTEXT, "help_option_names": []},
        help="A terminal coding agent. Without -p: an interactive session. With -p: one task, headless.",
        invoke_without_command=True, no_args_is_help=False, pretty_exceptions_enable=False,
        subcommand_metavar="| COMMAND [ARGS]...",
    )
    app.callback()(_root_callback(flags))
    return app


def root_command() -> Any:
    command = get_command(build_app())
    command.name = "agentcli"
    return command


def dispatch(argv: Sequence[str]) -> dict[str, Any] | int:
    """Parse argv with the tree. Root options: their values (and `prompt`), for the caller to run. Otherwise the
    exit status of what ran here: help or version (0), a subcommand (its own status), a usage error (2)."""
    args = list(argv)
    if args and args[0] in SUBCOMMANDS:
        status = invoke(load_subcommand(args[0]), args[1:], f"agentcli {args[0]}")
        return status if isinstance(status, int) else 0
    try:
        args = normalize(args, ROOT_FLAGS)
    except ArgvError as err:
        sys.stderr.write(usage_line("agentcli", str(err), err.suggestion))
        return 2
    outcome: dict[str, Any] | int = invoke(root_command(), args, "agentcli")
    return outcome


def invoke(command: Any, args: list[str], prog: str) -> Any:
    """Run a click command without letting click exit the process or print its multi-line usage block."""
    try:
        return command.main(args=args, prog_name=prog, standalone_mode=False)
    except typer.Abort:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except typer.TyperException as err:
        sys.stderr.write(click_error_line(err, prog))
        return err.exit_code


def run_subcommand(app: typer.Typer, argv: Sequence[str], name: str) -> int:
    """`agentcli NAME argv…` for a subcommand module's `main(argv)`: its typer app run in-process; an exit
    status always (help → 0, usage error → 2 with one line)."""
    command = get_command(app)
    status = invoke(command, list(argv), f"agentcli {name}")
    return status if isinstance(status, int) else 0
