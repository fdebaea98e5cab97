"""The options of a wrapper (`strace`, `time`, `xargs`, `sudo` …) up to the command it runs, and what they do
besides wrapping: `strace -o FILE` / `time -o FILE` write a file (`strace -o '|cmd'` runs a command),
`xargs -a FILE` reads one, `strace -E NAME=VALUE` sets the command's environment, `strace -p PID` attaches to a
process that is already running, `env -C DIR` / `env -S TEXT` change where and what runs. Short options are
read as getopt reads them (`-ffo/tmp/x` is `-f -f -o /tmp/x`) and a long option by any prefix getopt would
accept (`--out=/tmp/x`), so no spelling hides an effect.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.permissions.shell import Word


@dataclass(frozen=True, slots=True)
class Effects:
    """Options (short and long names) by what their value does."""

    writes: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    env: frozenset[str] = frozenset()
    attach: frozenset[str] = frozenset()
    rewrites: frozenset[str] = frozenset()

    @property
    def longs(self) -> tuple[str, ...]:
        every = (*self.writes, *self.reads, *self.env, *self.attach, *self.rewrites)
        return tuple(o for o in every if o.startswith("--"))


_TRACER = Effects(frozenset({"-o", "--output"}), frozenset(), frozenset({"-E", "--env"}),
                  frozenset({"-p", "--attach"}))
EFFECTS: dict[str, Effects] = {
    "strace": _TRACER,
    "ltrace": _TRACER,
    "time": Effects(writes=frozenset({"-o", "--output"})),
    "xargs": Effects(reads=frozenset({"-a", "--arg-file"})),
    "env": Effects(rewrites=frozenset({"-C", "--chdir", "-S", "--split-string"})),
}
_NONE = Effects()


@dataclass(slots=True)
class Scanned:
    """The words after the options (the wrapped command, if any) and the options with an effect, each with
    its value (`value` None: the option took no value, or it was missing)."""

    rest: list[Word]
    found: list[tuple[str, str, Word | None]] = field(default_factory=list)  # (kind, option, value)


def scan(words: list[Word], with_arg: frozenset[str], name: str) -> Scanned:
    """Split a wrapper's arguments into its options and the command it runs (`rest`)."""
    effects = EFFECTS.get(name, _NONE)
    out = Scanned([])
    i = 0
    while i < len(words):
        t = words[i].text
        if t == "--":
            out.rest = words[i + 1 :]
            return out
        if not t.startswith("-") or t == "-":
            break
        if t.startswith("--"):
            i += _long(words, i, with_arg, effects, out)
        else:
            i += _short(words, i, with_arg, effects, out)
    out.rest = words[i:]
    return out


def _kind(option: str, effects: Effects) -> str | None:
    for kind in ("writes", "reads", "env", "attach", "rewrites"):
        if option in getattr(effects, kind):
            return kind
    return None


def _long(words: list[Word], i: int, with_arg: frozenset[str], effects: Effects, out: Scanned) -> int:
    name, eq, value = words[i].text.partition("=")
    # getopt takes any unambiguous prefix: `--out` is `--output`; an ambiguous one is refused by the program
    # itself, so taking it for the option with an effect is only ever the safe side.
    known = (*effects.longs, *(o for o in with_arg if o.startswith("--")))
    full = name if name in known else next((o for o in known if o.startswith(name) and len(name) > 2), name)
    kind = _kind(full, effects)
    takes = full in with_arg or kind is not None
    if eq:
        if kind is not None:
            out.found.append((kind, full, _value(words[i], value)))
        return 1
    if not takes:
        return 1
    if kind is not None:
        out.found.append((kind, full, words[i + 1] if i + 1 < len(words) else None))
    return 2


def _short(words: list[Word], i: int, with_arg: frozenset[str], effects: Effects, out: Scanned) -> int:
    t = words[i].text
    for j in range(1, len(t)):
        option = "-" + t[j]
        kind = _kind(option, effects)
        if option in with_arg or kind is not None:
            attached = t[j + 1 :]
            if attached:
                value: Word | None = _value(words[i], attached)
                step = 1
            else:
                value = words[i + 1] if i + 1 < len(words) else None
                step = 2
            if kind is not None:
                out.found.append((kind, option, value))
            return step
    return 1


def _value(word: Word, text: str) -> Word:
    return Word(text, dynamic=word.dynamic, glob=word.glob, tilde=text.startswith("~"), quoted=word.quoted,
                raw=text)
