"""`@record` (agentcli/record.py) behaves as `@dataclass(frozen=True, slots=True)` for everything agentcli and its
users do with events, stream events and messages, without compiling code per class."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from agentcli.record import record


@record
class Point:
    """A record with every kind of field."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PointDc:
    """The same, as the dataclass it replaces."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@record
class Checked:
    """A record whose `__post_init__` validates."""

    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError("negative")


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((1, 2), {}), ((), {"x": 1, "y": 2}),
                                          ((1,), {"tags": ("a",), "meta": {"k": 1}})])
def test_construction_eq_hash_repr_match_the_dataclass(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    a, b = Point(*args, **kwargs), PointDc(*args, **kwargs)
    assert repr(a).replace("Point(", "") == repr(b).replace("PointDc(", "")
    assert dataclasses.astuple(a) == dataclasses.astuple(b) and dataclasses.asdict(a) == dataclasses.asdict(b)
    assert a == Point(*args, **kwargs) and hash(a) == hash(Point(*args, **kwargs))
    assert a != b  # another class, as two dataclasses with the same fields
    assert Point(1, meta={"a": 1}) == Point(1, meta={"b": 2})  # compare=False is honoured


def test_frozen_slotted_and_a_dataclass() -> None:
    p = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.x  # type: ignore[misc]
    assert not hasattr(p, "__dict__") and Point.__slots__ == ("x", "y", "tags", "meta")
    assert dataclasses.is_dataclass(p) and [f.name for f in dataclasses.fields(p)] == ["x", "y", "tags", "meta"]
    assert dataclasses.replace(p, y=5) == Point(1, 5)
    assert Point.__match_args__ == ("x", "y", "tags", "meta")
    match p:
        case Point(1, y):
            assert y == 0
        case _:
            pytest.fail("no match")


def test_defaults_are_not_shared_and_copies_and_pickles_work() -> None:
    a, b = Point(1), Point(1)
    assert a.meta is not b.meta
    c = Point(1, 2, ("t",), {"k": [1]})
    for twin in (copy.copy(c), copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert twin == c and twin.meta == {"k": [1]}


@pytest.mark.parametrize("call, message", [
    (lambda: Point(), "missing required argument: 'x'"),
    (lambda: Point(1, 2, (), {}, 5), "takes 4 positional arguments but 5 were given"),
    (lambda: Point(1, x=2), "multiple values for argument 'x'"),
    (lambda: Point(1, z=2), "unexpected keyword argument 'z'"),
    (lambda: Point(x=1, y=2, tags=(), z=3), "unexpected keyword argument 'z'"),  # as many as fields, one wrong
    (lambda: Point(1, 2, (), {}, z=5), "unexpected keyword argument 'z'"),
])
def test_wrong_arguments_are_type_errors(call: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        call()


def test_post_init_runs() -> None:
    assert Checked(1).n == 1
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)


def test_the_vocabulary_is_made_of_records() -> None:
    """Events, stream events and messages compile no code per class: none of them has a generated `__init__`."""
    from agentcli.core import events
    from agentcli.llm import messages, stream

    classes = [c for m in (events, stream, messages) for c in vars(m).values()
               if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == m.__name__]
    assert len(classes) >= 30
    assert all(c.__init__.__module__ == "agentcli.record" for c in classes), [
        c.__name__ for c in classes if c.__init__.__module__ != "agentcli.record"]


@record(frozen=False)
class Box:
    """A mutable record, as `@dataclass(slots=True)`."""

    items: list[int] = field(default_factory=list)
    name: str = "box"


@dataclass(slots=True)
class BoxDc:
    items: list[int] = field(default_factory=list)
    name: str = "box"


@record(repr=False, eq=False)
class Secretive:
    """Neither a repr that would show its fields nor field-wise equality (`Settings`)."""

    key: str


def test_a_mutable_record_behaves_as_a_slotted_dataclass() -> None:
    b, d = Box([1]), BoxDc([1])
    b.name = "other"
    d.name = "other"
    assert repr(b).replace("Box(", "") == repr(d).replace("BoxDc(", "")
    assert b == Box([1], "other") and b != Box([2], "other")
    with pytest.raises(TypeError, match="unhashable"):
        hash(b)
    with pytest.raises(TypeError, match="unhashable"):
        hash(d)
    with pytest.raises(AttributeError):
        b.other = 1  # type: ignore[attr-defined]  (slots: no new attributes, as the dataclass)
    assert Box().items is not Box().items
    assert dataclasses.replace(b, name="x") == Box([1], "x")
    assert pickle.loads(pickle.dumps(b)) == b


def test_repr_and_eq_can_be_left_out() -> None:
    s = Secretive("sk-do-not-show")
    assert "sk-do-not-show" not in repr(s) and repr(s).startswith("<")
    assert s != Secretive("sk-do-not-show") and s == s and hash(s) == hash(s)  # identity, as eq=False
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.key = "x"  # type: ignore[misc]


def test_a_recursive_repr_stops() -> None:
    b = Box()
    b.items.append(b)  # type: ignore[arg-type]
    assert repr(b) == "Box(items=[...], name='box')"


def test_what_the_shared_init_cannot_do_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="keyword-only"):
        @record
        class KwOnly:
            a: int = field(kw_only=True)

    with pytest.raises(TypeError, match="InitVar"):
        @record
        class WithInitVar:
            a: int
            b: dataclasses.InitVar[int]


def test_a_class_without_a_docstring_gets_one_without_inspect() -> None:
    @record
    class Bare:
        a: int
        b: str

    assert Bare.__doc__ == "Bare(a, b)"


class _Base:
    """A plain base: its annotations are not fields."""

    plain: int


@record
class Parent(_Base):
    """A record that a record extends."""

    a: int
    b: str = "b"
    kind: ClassVar[str] = "parent"


@record
class Child(Parent):
    """Redefines a field's default (keeping its place) and adds its own."""

    b: str = "child"
    c: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ParentDc(_Base):
    a: int
    b: str = "b"
    kind: ClassVar[str] = "parent"


@dataclass(frozen=True, slots=True)
class ChildDc(ParentDc):
    b: str = "child"
    c: tuple[int, ...] = ()


def _shape(cls: type) -> list[tuple[Any, ...]]:
    return [(f.name, f.type, f.default, f.init, f.kw_only) for f in dataclasses.fields(cls)]


def test_fields_are_collected_as_dataclass_collects_them() -> None:
    """`@record` collects the fields itself (not with `dataclass()`): the same fields, order, defaults and types
    (strings under `from __future__ import annotations`), ClassVars left out, inherited fields first."""
    assert _shape(Parent) == _shape(ParentDc) and _shape(Child) == _shape(ChildDc)
    assert Child.__match_args__ == ChildDc.__match_args__ == ("a", "b", "c")
    assert Child(1) == Child(1, "child", ()) and Child.kind == "parent"
    assert dataclasses.replace(Child(1), c=(2,)) == Child(1, "child", (2,))
    match Child(5, "x"):
        case Child(a, b):
            assert (a, b) == (5, "x")


def test_what_dataclass_refuses_is_refused_alike() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        @record
        class MutableDefault:
            items: list[int] = []

    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @record
        class Order:
            a: int = 0
            b: int


def test_the_dataclasses_layout_record_leans_on_is_still_there() -> None:
    """The one private name of `dataclasses` that `@record` uses (its mark of a real field): if a Python release
    drops it, this fails loudly — and `@record` falls back to `dataclass()` collecting the fields, the same."""
    from agentcli import record as module

    assert module._FIELD_MARK is not None
    assert dataclasses.fields(Point)[0]._field_type is module._FIELD_MARK  # type: ignore[attr-defined]

    class Again:
        x: int
        y: str = "y"
        kind: ClassVar[str] = "k"

    class AgainDc:
        x: int
        y: str = "y"
        kind: ClassVar[str] = "k"

    fallback = module._fields_of(Again, None)
    fast = module._fields_of(AgainDc, module._FIELD_MARK)
    assert [(f.name, f.default) for f in fallback.values()] == [(f.name, f.default) for f in fast.values()]
    assert list(fallback) == ["x", "y"]
