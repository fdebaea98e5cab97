"""The root flags as data, and the small reader that gives their argv shapes one canonical form.

One table (`Flag`s, declared in agentcli.cli.table) feeds three things: the typer command (help, panels, value checks),
the shell completion scripts, and `fast_parse`, which lets `agentcli -p` start without importing typer at all
(typer costs ~20 ms of imports, see bench/RESULTS.md). This module imports nothing beyond the standard library.

Claude Code's shapes that click cannot express are rewritten here before typer sees argv:

    --allowedTools A B        (`many`: every following word up to the next option)  → --allowedTools=A --allowedTools=B
    -r / --resume [ID]        (`optional`: a value only when the next word is not an option) → --resume= when bare
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import field
from typing import Any, Literal

from agentcli.record import record

Kind = Literal["switch", "value", "many", "append", "optional", "help", "version"]


@record
class Flag:
    """One root option. `kind`: switch (no value), value (one), many (one or more words after one flag, and the
    flag may repeat), append (one value, repeatable), optional (a value or none: `const`), version.
    `complete` names what the shells offer for the value: dir, file, session, model, preset, provider."""

    names: tuple[str, ...]
    help: str
    kind: Kind = "value"
    type: type = str
    choices: tuple[str, ...] = ()
    metavar: str = ""
    dest: str = ""
    panel: str = "Model"
    complete: str = ""
    const: str = ""

    @property
    def name(self) -> str:
        """The destination key: `dest`, else the long name in snake case."""
        if self.dest:
            return self.dest
        long = next((n for n in self.names if n.startswith("--")), self.names[0])
        return long.lstrip("-").replace("-", "_")

    @property
    def long(self) -> str:
        return next((n for n in self.names if n.startswith("--")), self.names[0])

    @property
    def takes_value(self) -> bool:
        return self.kind not in ("switch", "help", "version")


def flag(*names: str, help: str, **kw: Any) -> Flag:
    """`flag("--max-turns", type=int, help=…)`: an entry of the table, in add_argument's words."""
    return Flag(names=names, help=help, **kw)


class ArgvError(ValueError):
    """A word the table does not allow; `option` is the word, `suggestion` the closest known option."""

    def __init__(self, message: str, option: str = "", suggestion: str | None = None) -> None:
        super().__init__(message)
        self.option = option
        self.suggestion = suggestion


@record(frozen=False)
class Parsed:
    """What a valid argv says: option values by `Flag.name` (absent options are not keys) and the positionals."""

    values: dict[str, Any] = field(default_factory=dict)
    positionals: list[str] = field(default_factory=list)


def closest(word: str, options: Sequence[str]) -> str | None:
    """The known option nearest to a mistyped one (`--modle` → `--model`), or None."""
    import difflib

    stem = word.split("=", 1)[0]
    found = difflib.get_close_matches(stem, list(options), n=1, cutoff=0.6)
    return found[0] if found else None


# Yields (flag, value) pairs; returns the index of the next unread word.
_Steps = Generator[tuple["Flag | None", "str | None"], None, int]


class _Reader:
    """Walks argv once, yielding (flag, value) for options and (None, word) for positionals."""

    def __init__(self, flags: Sequence[Flag]) -> None:
        self.by_name = {n: f for f in flags for n in f.names}

    def is_option(self, word: str) -> bool:
        """As argparse decided: a known option (`--model=a b`, `-nmy name`) is one; otherwise `-`, a negative
        number and a word with a space (`-p "- fix the list"`) are values."""
        if not word.startswith("-") or word == "-":
            return False
        if word.partition("=")[0] in self.by_name or (word[1] != "-" and word[:2] in self.by_name):
            return True
        if " " in word:
            return False
        try:
            float(word)
        except ValueError:
            return True
        return False

    def unknown(self, word: str) -> ArgvError:
        stem = word.split("=", 1)[0]
        near = closest(stem, [n for n in self.by_name if n.startswith("--")] if stem.startswith("--")
                       else list(self.by_name))
        return ArgvError(f"no such option {stem}", stem, near)

    def words(self, argv: Sequence[str]) -> Iterator[tuple[Flag | None, str | None]]:
        i = 0
        while i < len(argv):
            word = argv[i]
            i += 1
            if word == "--":
                yield from ((None, w) for w in argv[i:])
                return
            if not self.is_option(word):
                yield None, word
                continue
            if word.startswith("--"):
                name, eq, attached = word.partition("=")
                f = self.by_name.get(name)
                if f is None:
                    raise self.unknown(word)
                i = yield from self._values(f, attached if eq else None, argv, i, name)
                continue
            i = yield from self._short_cluster(word, argv, i)

    def _short_cluster(self, word: str, argv: Sequence[str], i: int) -> _Steps:
        """`-p`, `-pc` (switches together), `-nNAME` (a value attached)."""
        for pos in range(1, len(word)):
            f = self.by_name.get("-" + word[pos])
            if f is None:
                raise self.unknown(word if pos == 1 else "-" + word[pos])
            rest = word[pos + 1:]
            if f.takes_value:
                return (yield from self._values(f, rest or None, argv, i, "-" + word[pos]))
            yield f, None
        return i

    def _values(self, f: Flag, attached: str | None, argv: Sequence[str], i: int, said: str) -> _Steps:
        """Yield the value(s) of `f`; return the index of the next unread word."""
        if not f.takes_value:
            if attached is not None:
                raise ArgvError(f"option {said} does not take a value", said)
            yield f, None
            return i
        if attached is not None:
            yield f, attached
            return i
        if f.kind == "optional":
            if i < len(argv) and not self.is_option(argv[i]):
                yield f, argv[i]
                return i + 1
            yield f, f.const
            return i
        if f.kind == "many":
            start = i
            while i < len(argv) and not self.is_option(argv[i]) and argv[i] != "--":
                yield f, argv[i]
                i += 1
            if i == start:
                raise ArgvError(f"option {said} requires at least one value", said)
            return i
        if i >= len(argv):
            raise ArgvError(f"option {said} requires a value", said)
        yield f, argv[i]
        return i + 1


def normalize(argv: Sequence[str], flags: Sequence[Flag]) -> list[str]:
    """argv in click's terms: every valued option as `--long=value` (one per value), then `--` and the
    positionals. Raises ArgvError for an unknown option, a missing value or a value outside its choices."""
    out: list[str] = []
    positionals: list[str] = []
    for f, value in _Reader(flags).words(argv):
        if f is None:
            assert value is not None
            positionals.append(value)
        elif value is None:
            out.append(f.long)
        else:
            check_choice(f, value)
            out.append(f"{f.long}={value}")
    return [*out, "--", *positionals] if positionals else out


def check_choice(f: Flag, value: str) -> None:
    """A value outside the flag's choices: name the closest one, or all of them."""
    if f.choices and value not in f.choices:
        near = closest(value, f.choices)
        listed = "" if near else f" (choose from {', '.join(f.choices)})"
        raise ArgvError(f"invalid choice for {f.long}: {value!r}{listed}", f.long, near)


def _convert(f: Flag, value: str) -> Any:
    check_choice(f, value)
    if f.type is str:
        return value
    try:
        return f.type(value)
    except ValueError as e:
        raise ArgvError(f"invalid value for {f.long}: {value!r}", f.long) from e


def fast_parse(argv: Sequence[str], flags: Sequence[Flag]) -> Parsed:
    """Parse argv with the table alone (no typer): the same values the typer command gives for a valid argv (a
    test holds the two to that). Raises ArgvError for anything it does not accept; callers then let typer parse,
    so every error message comes from one place."""
    parsed = Parsed()
    for f, value in _Reader(flags).words(argv):
        if f is None:
            assert value is not None
            parsed.positionals.append(value)
        elif f.kind in ("help", "version"):
            raise ArgvError(f"{f.long} is typer's to answer", f.long)
        elif value is None:
            parsed.values[f.name] = True
        elif f.kind in ("many", "append"):
            parsed.values.setdefault(f.name, []).append(_convert(f, value))
        else:
            parsed.values[f.name] = _convert(f, value)
    return parsed
