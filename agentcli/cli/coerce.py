"""Values that need no conversion skip typer's coercion, and with it pydantic.

typer coerces every value of a non-bool parameter, defaults and `None` included, through a pydantic `TypeAdapter`
built on first use: the import alone is ~100 ms of CPU, which `agentcli sessions list` would pay to turn `0` into
`0`. `skip_plain_coercion(command)` gives every typer parameter of a tree a `process_value` (click's public hook for
one parameter's value) that returns what typer would return unchanged — a parameter's own default, a string for a
`str` parameter, strings for `list[str]`, a listed `Literal` choice, a plain decimal for an `int` without bounds —
and leaves everything else, every error and every real conversion, to typer's own `process_value`.

This leans on typer's layout in two places: its parameters carry `type_descriptor` (annotation and parameter info)
and take their value through `process_value`; a command keeps the help option it made. tests/cli/test_cli_coerce.py
runs every parameter of the tree both ways and checks a subcommand imports no pydantic: it fails loudly the day
typer changes underneath this.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal, get_args, get_origin

from typer.core import TyperArgument, TyperOption

_DECIMAL = re.compile(r"-?[0-9]{1,18}")


def plain(annotation: Any, info: Any, value: Any, default: Any, multi: bool) -> tuple[Any] | None:
    """`(value typer would return,)` when no conversion is needed, else None."""
    if value is None:
        return ((),) if multi else (None,)
    if type(value) is type(default) and value == default and isinstance(value, str | int | float | bool):
        return (value,)
    if annotation is str and type(value) is str:
        return (value,)
    if get_origin(annotation) is list and get_args(annotation) == (str,) \
            and isinstance(value, list | tuple) and all(type(v) is str for v in value):
        return (list(value),)
    if get_origin(annotation) is Literal and type(value) is str and value in get_args(annotation) \
            and all(type(a) is str for a in get_args(annotation)):
        return (value,)
    if annotation is int and type(value) is str and _DECIMAL.fullmatch(value) and info.min is None \
            and info.max is None:
        return (int(value),)
    return None


def _process(param: TyperOption | TyperArgument, ctx: Any, value: Any, typers: Callable[[Any, Any], Any]) -> Any:
    descriptor = param.type_descriptor
    multi = param.multiple or param.nargs == -1
    done = None if multi and isinstance(value, str) else plain(
        descriptor.annotation, descriptor.parameter_info, value, param.default, multi)
    if done is None or (param.required and param.value_is_missing(done[0])):
        return typers(ctx, value)  # typer's conversion, or its error
    if param.callback is not None:
        return param.callback(ctx, param, done[0])
    return done[0]


class PlainOption(TyperOption):
    def process_value(self, ctx: Any, value: Any) -> Any:
        return _process(self, ctx, value, super().process_value)


class PlainArgument(TyperArgument):
    def process_value(self, ctx: Any, value: Any) -> Any:
        return _process(self, ctx, value, super().process_value)


def skip_plain_coercion(command: Any, parent: Any = None) -> Any:
    """`command` (a click command typer built) and every command under it, its typer parameters made `Plain…`,
    the help option included: click makes that one on first use and keeps it, so it is asked for here, in a context
    made as click makes the command's own."""
    import typer

    ctx = typer.Context(command, parent=parent, **(command.context_settings or {}))
    for param in [*command.params, command.get_help_option(ctx)]:
        if type(param) is TyperOption:
            param.__class__ = PlainOption
        elif type(param) is TyperArgument:
            param.__class__ = PlainArgument
    for sub in getattr(command, "commands", {}).values():
        skip_plain_coercion(sub, ctx)
    return command
