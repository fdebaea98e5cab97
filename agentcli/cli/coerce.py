"""Coercing command-line values without pydantic where there is nothing to coerce.

typer 0.29 coerces every parameter's value, defaults and `None` included, through a pydantic `TypeAdapter`
built on first use: the import alone is ~100 ms of CPU, which `agentcli sessions list` paid to turn `0` into `0`.
`defer_coercion` gives each parameter a coercer that passes through what typer would return unchanged — a
parameter's own default, a string for a `str` parameter, strings for `list[str]`, a listed `Literal` choice, a
plain decimal for an `int` without bounds — and hands anything else to typer's own coercion (built then), so
every error and every conversion beyond these stays typer's. tests/cli/test_cli_coerce.py holds both to the
same results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from typer import _click as click
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer.core import TyperOption, _TyperParameter

_DECIMAL = re.compile(r"-?[0-9]{1,18}")


@dataclass(frozen=True)
class Deferred(RuntimeParam):
    """typer's coercion, built only for a value that needs it."""

    descriptor: TypeDescriptor

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: click.Context) -> Any:
        done = plain(self.annotation, self.parameter_info, value, param.default)
        if done is not None:
            return done[0]
        real = build_runtime_param(self.descriptor)
        param._runtime_param = real
        return real._coerce_value(value, param=param, ctx=ctx)


def plain(annotation: Any, info: Any, value: Any, default: Any) -> tuple[Any] | None:
    """`(value typer would return,)` when no conversion is needed, else None."""
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


def defer_coercion(command: click.Command) -> click.Command:
    """`command` (and every command under it) with deferred coercion for parameters not yet coerced, the help
    option included (click makes that one at parse time)."""
    for param in command.params:
        _defer(param)
    make_help = command.get_help_option

    def get_help_option(ctx: click.Context) -> TyperOption | None:
        option = make_help(ctx)
        if option is not None:
            _defer(option)
        return option

    command.get_help_option = get_help_option  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        defer_coercion(sub)
    return command


def _defer(param: click.Parameter) -> None:
    if isinstance(param, _TyperParameter) and param._runtime_param is None:
        d = param.type_descriptor
        param._runtime_param = Deferred(d.parameter_info, d.annotation, d)
