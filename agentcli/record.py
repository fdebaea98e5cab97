"""`@record`: a frozen, slotted dataclass made without compiling code for each class.

`@dataclass(frozen=True, slots=True)` writes the source of `__init__`, `__repr__`, `__eq__`, `__hash__`,
`__setattr__` and `__delattr__` for every class and compiles it with `exec` when the module is imported: ~0.5 ms a
class, ~45 ms of every `-p` run's start-up for the events, stream events and messages it imports
(bench/RESULTS.md, "Sixth landing — perf"). `@record` lets `dataclasses` collect the fields (so `fields()`,
`replace()`, `asdict()`, `__match_args__` and `match` patterns work as for any dataclass) and gives the class
methods shared by every record, which read the field names the class keeps, instead of generated ones.

What stays the same as `@dataclass(frozen=True, slots=True)`: assigning or deleting an attribute raises
`dataclasses.FrozenInstanceError`; equality compares the fields with `compare=True` of two objects of the same
class; the hash is that of those fields; the repr shows the fields with `repr=True`; defaults and
`field(default_factory=...)` behave alike, positional or by keyword; `__post_init__` is called; copies and pickles
work. Type checkers see a frozen dataclass (`dataclass_transform`). Creating an object costs ~1 µs more than with
a generated `__init__`: these classes are created a few hundred times a run, their definitions every run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T", bound=type)

_MISSING: Any = dataclasses.MISSING


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: T) -> T:
    """Make `cls` a frozen dataclass with `__slots__` (see the module's docstring)."""
    dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
    fields = dataclasses.fields(cls)
    ns = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
    for f in fields:
        ns.pop(f.name, None)  # a default stays on the Field, not as a class attribute (slots forbid both)
    names = tuple(f.name for f in fields)
    ns["__slots__"] = tuple(n for n in names if not _slot_inherited(cls, n))
    ns["_record_init"] = tuple((f.name, f.default, None if f.default_factory is _MISSING else f.default_factory)
                               for f in fields if f.init)
    ns["_record_fixed"] = tuple((f.name, f.default, None if f.default_factory is _MISSING else f.default_factory)
                                for f in fields if not f.init and (f.default is not _MISSING or
                                                                   f.default_factory is not _MISSING))
    ns["_record_compare"] = tuple(f.name for f in fields if f.compare)
    ns["_record_hash"] = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    ns["_record_repr"] = tuple(f.name for f in fields if f.repr)
    ns["_record_all"] = names
    for name, fn in _METHODS.items():
        if name not in ns:
            ns[name] = fn
    new = type(cls)(cls.__name__, cls.__bases__, ns)
    new.__qualname__ = cls.__qualname__
    return new


def _slot_inherited(cls: type, name: str) -> bool:
    return any(name in getattr(base, "__slots__", ()) for base in cls.__mro__[1:])


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    spec = self._record_init
    if len(args) > len(spec):
        raise TypeError(f"{type(self).__name__}() takes {len(spec)} positional arguments but {len(args)} were given")
    setter = object.__setattr__
    for i, (name, default, factory) in enumerate(spec):
        if i < len(args):
            if name in kwargs:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            value = args[i]
        elif name in kwargs:
            value = kwargs.pop(name)
        elif factory is not None:
            value = factory()
        elif default is not _MISSING:
            value = default
        else:
            raise TypeError(f"{type(self).__name__}() missing required argument: {name!r}")
        setter(self, name, value)
    if kwargs:
        raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")
    for name, default, factory in self._record_fixed:  # init=False fields that have a default
        setter(self, name, default if factory is None else factory())
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = self._record_compare
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, n) for n in self._record_hash))


def _repr(self: Any) -> str:
    inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._record_repr)
    return f"{self.__class__.__qualname__}({inner})"


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, n) for n in self._record_all]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self._record_all, state, strict=True):
        object.__setattr__(self, name, value)


_METHODS: dict[str, Callable[..., Any]] = {
    "__init__": _init, "__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr, "__eq__": _eq,
    "__hash__": _hash, "__repr__": _repr, "__getstate__": _getstate, "__setstate__": _setstate,
}
