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

`@record(frozen=False)` is `@dataclass(slots=True)` (assignable; unhashable, as field equality makes it), and
`@record(repr=False, eq=False)` leaves out the repr and the equality as `dataclass`'s flags do (`Settings`, whose
repr would show API keys). Keyword-only fields and `InitVar`s are refused when the class is made. In instructions
(valgrind, a 5-field class): `@dataclass(frozen=True, slots=True)` 3.9 M, `@record` 0.31 M; every class a `-p` run
or the REPL's start imports is a record (tests/cli/test_startup_classes.py).
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, dataclass_transform, get_origin, overload

T = TypeVar("T", bound=type)

_MISSING: Any = dataclasses.MISSING


@overload
def record(cls: T, /) -> T: ...


@overload
def record(*, frozen: bool = True, repr: bool = True, eq: bool = True) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: T | None = None, /, *, frozen: bool = True, repr: bool = True,
           eq: bool = True) -> T | Callable[[T], T]:
    """Make `cls` a dataclass with `__slots__` (see the module's docstring): `@record` is
    `@dataclass(frozen=True, slots=True)`; `@record(frozen=False)` is `@dataclass(slots=True)`, and `repr=False` /
    `eq=False` leave the class without a repr (one that would show secrets) or a field-wise equality, as
    `dataclass`'s own flags do."""
    if cls is None:
        return lambda c: _make(c, frozen=frozen, repr=repr, eq=eq)
    return _make(cls, frozen=True, repr=True, eq=True)


def _make(cls: T, *, frozen: bool, repr: bool, eq: bool) -> T:
    if not cls.__dict__.get("__doc__"):
        # dataclasses would write "Name(signature)" here with inspect.signature, which for a class without an
        # __init__ of its own parses object's text signature with tokenize (its import and regex: ~2 ms, once)
        cls.__doc__ = f"{cls.__name__}({', '.join(inspect.get_annotations(cls))})"
    declared = _fields_of(cls, _FIELD_MARK)
    fields = tuple(declared.values())
    ns = dict(cls.__dict__)
    ns.pop("__dict__", None)
    ns.pop("__weakref__", None)
    ns["__dataclass_fields__"] = declared
    ns["__match_args__"] = tuple(f.name for f in fields if f.init)
    inherited = {n for base in cls.__mro__[1:] for n in _slots_of(base)}
    init, fixed, compare, hashed, shown, names, slots = [], [], [], [], [], [], []
    for f in fields:  # one pass: this runs for every record class at every start
        name = f.name
        ns.pop(name, None)  # a default stays on the Field, not as a class attribute (slots forbid both)
        names.append(name)
        if name not in inherited:
            slots.append(name)
        spec = (name, f.default, None if f.default_factory is _MISSING else f.default_factory)
        if f.init:
            init.append(spec)
        elif f.default is not _MISSING or f.default_factory is not _MISSING:
            fixed.append(spec)  # an init=False field with a default
        if f.compare:
            compare.append(name)
        if f.compare if f.hash is None else f.hash:
            hashed.append(name)
        if f.repr:
            shown.append(name)
    ns["__slots__"] = tuple(slots)
    ns["_record_init"], ns["_record_fixed"] = tuple(init), tuple(fixed)
    ns["_record_compare"], ns["_record_hash"] = tuple(compare), tuple(hashed)
    ns["_record_repr"], ns["_record_all"] = tuple(shown), tuple(names)
    # dataclass's rule: a __hash__ written in the class body stays (not the None that an __eq__ there implies)
    explicit_hash = "__hash__" in ns and not (ns["__hash__"] is None and "__eq__" in ns)
    methods = dict(_METHODS)
    if frozen:
        methods.update(_FROZEN)
    if repr:
        methods["__repr__"] = _repr
    if eq:
        methods["__eq__"] = _eq
        if not explicit_hash:
            ns.pop("__hash__", None)
            methods["__hash__"] = _hash if frozen else None  # a mutable object with field equality: unhashable
    for name, fn in methods.items():
        if name not in ns:
            ns[name] = fn
    new = type(cls)(cls.__name__, cls.__bases__, ns)
    new.__qualname__ = cls.__qualname__
    return new


# What `dataclasses.fields()` and `replace()` look for on a field that is a real field (not a ClassVar): the one
# name of dataclasses' layout this module leans on, so that the fields are collected here in one pass instead of
# by `dataclass()` (its processing was ~75 % of a record's making: three regex checks of every string annotation,
# its parameters object, its abstract-method update). tests/test_record.py fails loudly if it goes away.
_FIELD_MARK: Any = getattr(dataclasses, "_FIELD", None)


def _fields_of(cls: type, mark: Any) -> dict[str, dataclasses.Field[Any]]:
    """The class's fields as `dataclass()` would collect them: its dataclass bases' fields in MRO order, then
    its own annotations (a ClassVar is not a field), each default made a `Field`; the errors `dataclass()` raises
    for a mutable default or a required field after a defaulted one, and refusals for what `@record` does not do
    (keyword-only fields, `InitVar`s). `mark`: `_FIELD_MARK`."""
    if mark is None:  # dataclasses changed underneath: let it collect them (slower, same result)
        dataclasses.dataclass(init=False, repr=False, eq=False, match_args=False)(cls)
        declared = dict(cls.__dict__["__dataclass_fields__"])
        for each in declared.values():
            _refuse(cls, each.name, each.type, each)
        real = dataclasses.fields(cls)
        return {n: each for n, each in declared.items() if each in real}
    out: dict[str, dataclasses.Field[Any]] = {}
    for base in cls.__mro__[-1:0:-1]:
        for name, inherited in base.__dict__.get("__dataclass_fields__", {}).items():
            if inherited._field_type is mark:
                out[name] = inherited
    own = inspect.get_annotations(cls)
    for name, annotation in own.items():
        if _is_classvar(annotation):
            continue
        default = cls.__dict__.get(name, _MISSING)
        f: Any = default if isinstance(default, dataclasses.Field) else dataclasses.field(default=default)
        _refuse(cls, name, annotation, f)
        if f.default is not _MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use "
                             "default_factory")
        f.name, f.type, f._field_type = name, annotation, mark
        if f.kw_only is _MISSING:
            f.kw_only = False
        out[name] = f
    seen_default = False
    for f in out.values():  # dataclass()'s rule for the generated __init__, kept for the shared one
        if not f.init:
            continue
        if f.default is not _MISSING or f.default_factory is not _MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    return out


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        if "ClassVar" not in annotation:
            return False
        head = annotation.lstrip().split("[", 1)[0].strip()
        return head == "ClassVar" or head.endswith(".ClassVar")
    return annotation is ClassVar or get_origin(annotation) is ClassVar


def _refuse(cls: type, name: str, annotation: Any, f: dataclasses.Field[Any]) -> None:
    """What the shared `__init__` does not do, refused when the class is made rather than misbehaving later."""
    if f.kw_only is True or "KW_ONLY" in str(annotation):
        raise TypeError(f"@record {cls.__qualname__}: keyword-only fields are not supported; use @dataclass")
    if "InitVar" in str(annotation):
        raise TypeError(f"@record {cls.__qualname__}: InitVar fields are not supported; use @dataclass")


def _slots_of(cls: type) -> tuple[str, ...]:
    slots = cls.__dict__.get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    spec = self._record_init
    setter = object.__setattr__
    if not kwargs and len(args) == len(spec):  # every field by position: how most events are made
        for (name, _, _), value in zip(spec, args, strict=True):
            setter(self, name, value)
    elif not (not args and len(kwargs) == len(spec) and _all_by_keyword(self, spec, kwargs)):
        if len(args) > len(spec):
            raise TypeError(f"{type(self).__name__}() takes {len(spec)} positional arguments but {len(args)} were "
                            "given")
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


def _all_by_keyword(self: Any, spec: tuple[tuple[str, Any, Any], ...], kwargs: dict[str, Any]) -> bool:
    """Every field given by keyword (as `dataclasses.replace()` makes its copy): set them; False when a keyword
    is not a field (the caller then goes field by field and says which)."""
    setter = object.__setattr__
    try:
        for name, _, _ in spec:
            setter(self, name, kwargs[name])
    except KeyError:
        return False
    return True


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


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._record_repr)
    return f"{self.__class__.__qualname__}({inner})"


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, n) for n in self._record_all]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self._record_all, state, strict=True):
        object.__setattr__(self, name, value)


_METHODS: dict[str, Callable[..., Any] | None] = {
    "__init__": _init, "__getstate__": _getstate, "__setstate__": _setstate,
}
_FROZEN: dict[str, Callable[..., Any] | None] = {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
