"""Shell completion: scripts for bash, zsh and fish generated from the typer command tree, and the values they
ask for while completing (`agentcli __complete sessions|models|presets|providers|tools`).

`python -m agentcli.cli.completion bash|zsh|fish` generates a script; the committed ones in completions/ are checked
against this output by a test (tests/cli/test_completions.py), shipped in the wheel (agentcli/_completions/) and
printed by `agentcli completion bash|zsh|fish`. Flags and commands are static in the scripts
(instant); only values that change (session ids and names, models, presets) call back into agentcli, whose
`__complete` path is answered from agentcli's own data files before the CLI is imported (no typer, no provider).

What a value completes to is read from its metavar: SESSION, MODEL, PRESET, PROVIDER, TOOL (dynamic), DIR, FILE.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DYNAMIC = {"SESSION": "sessions", "SESSION...": "sessions", "MODEL": "models", "PRESET": "presets",
           "PROVIDER": "providers", "TOOL": "tools"}


@dataclass
class Option:
    names: list[str]
    help: str
    takes_value: bool
    choices: list[str] = field(default_factory=list)
    metavar: str = ""
    many: bool = False  # takes every following word up to the next option (`--allowedTools A B`)


@dataclass
class Node:
    """One command of the tree: `path` is "" for the root, "sessions", "sessions list" …"""

    path: str
    help: str
    options: list[Option]
    children: list[tuple[str, str]]
    positional: str = ""  # metavar of the first positional argument
    choices: list[str] = field(default_factory=list)  # of the first positional argument


def _options(cmd: Any) -> tuple[list[Option], str, list[str]]:
    from typer.core import TyperArgument

    opts: list[Option] = []
    positional, choices = "", []
    for p in cmd.params:
        found = [str(c) for c in getattr(getattr(p, "type_descriptor", None), "choices", None) or ()]
        if isinstance(p, TyperArgument):
            if not positional:
                positional, choices = p.metavar or p.name or "", found
            continue
        names = [*p.opts, *p.secondary_opts]
        takes_value = not getattr(p, "is_flag", False) and not getattr(p, "count", False)
        opts.append(Option(names, getattr(p, "help", None) or "", takes_value, found, p.metavar or ""))
    if not any("--help" in o.names for o in opts):
        opts.append(Option(["-h", "--help"], "show help and exit", False))
    return opts, positional, choices


def _walk(path: str, cmd: Any, out: list[Node]) -> None:
    from typer.core import TyperGroup

    opts, positional, choices = _options(cmd)
    subs = dict(cmd.commands) if isinstance(cmd, TyperGroup) else {}
    children = [(name, c.get_short_help_str(80)) for name, c in subs.items()]
    out.append(Node(path, cmd.help or "", opts, children, positional, choices))
    for name, c in subs.items():
        _walk(f"{path} {name}".strip(), c, out)


def command_tree() -> list[Node]:
    """Every command, root first, with its options, children and first positional."""
    from agentcli.cli.app import load_subcommand, root_command
    from agentcli.cli.table import ROOT_FLAGS, SUBCOMMANDS

    root = root_command()
    opts, _, _ = _options(root)
    many = {name for f in ROOT_FLAGS if f.kind == "many" for name in f.names}  # click has no such option kind
    for o in opts:
        o.many = bool(many & set(o.names))
    nodes = [Node("", root.help or "", opts, list(SUBCOMMANDS.items()))]
    for name in SUBCOMMANDS:
        _walk(name, load_subcommand(name), nodes)
    return nodes


def _value_kind(metavar: str) -> str:
    if metavar in DYNAMIC:
        return f"dyn:{DYNAMIC[metavar]}"
    if metavar in ("DIR", "FILE"):
        return metavar.lower()
    if metavar == "FILE_OR_JSON":
        return "file"
    return ""


def _q(text: str) -> str:
    """Single-quoted for bash and zsh."""
    return "'" + text.replace("'", "'\\''") + "'"


def _fq(text: str) -> str:
    """Single-quoted for fish (which escapes inside quotes instead)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _bash_value(kind: str, choices: list[str]) -> str:
    if choices:
        return f'COMPREPLY=($(compgen -W {_q(" ".join(choices))} -- "$cur"))'
    if kind.startswith("dyn:"):
        return f"_agentcli_values {kind[4:]}"
    if kind == "dir":
        return 'COMPREPLY=($(compgen -d -- "$cur"))'
    if kind == "file":
        return 'COMPREPLY=($(compgen -f -- "$cur"))'
    return ":"


def _patterns(nodes: list[Node]) -> tuple[str, str]:
    """Case patterns `"PATH|WORD"`: a word naming a child command, and an option taking many words."""
    descend = "|".join(f'"{n.path}|{c}"' for n in nodes for c, _ in n.children) or '"|"'
    many = "|".join(f'"{n.path}|{s}"' for n in nodes for o in n.options if o.many for s in o.names) or '"|"'
    return descend, many


def bash() -> str:
    nodes = command_tree()
    descend, many = _patterns(nodes)
    values, flags, words = [], [], []
    for n in nodes:
        for o in n.options:
            if o.takes_value:
                pats = "|".join(f'"{n.path}|{s}"' for s in o.names)
                values.append(f"        {pats}) {_bash_value(_value_kind(o.metavar), o.choices)}; return;;")
        flags.append(f'        "{n.path}") w={_q(" ".join(s for o in n.options for s in o.names))};;')
        kind = _value_kind(n.positional)
        if n.children:
            words.append(f'        "{n.path}") COMPREPLY=($(compgen -W {_q(" ".join(c for c, _ in n.children))} '
                         f'-- "$cur"));;')
        elif kind or n.choices:
            words.append(f'        "{n.path}") {_bash_value(kind, n.choices)};;')
    nl = "\n"
    return f"""# bash completion for agentcli (generated by `python -m agentcli.cli.completion bash`; do not edit)
_agentcli_values() {{
    local IFS=$'\\n'
    COMPREPLY=($(compgen -W "$(agentcli __complete "$1" 2>/dev/null)" -- "$cur"))
}}
_agentcli() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" cmdpath="" w i
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${{COMP_WORDS[i]}}"
        [[ -z $cmdpath && $i -gt 1 ]] && break  # after the first word, the root takes no command (it is the prompt)
        case "$cmdpath|$w" in
            {descend}) cmdpath="${{cmdpath:+$cmdpath }}$w";;
        esac
    done
    for ((i = COMP_CWORD - 1; i >= 1; i--)); do  # inside `--allowedTools A B …`: complete for the option
        w="${{COMP_WORDS[i]}}"
        [[ $w == -* ]] || continue
        case "$cmdpath|$w" in
            {many}) prev="$w";;
        esac
        break
    done
    case "$cmdpath|$prev" in
{nl.join(values)}
    esac
    if [[ $cur == -* ]]; then
        case "$cmdpath" in
{nl.join(flags)}
        esac
        COMPREPLY=($(compgen -W "$w" -- "$cur"))
        return
    fi
    [[ -z $cmdpath && $COMP_CWORD -gt 1 ]] && return
    case "$cmdpath" in
{nl.join(words)}
    esac
}}
complete -o default -F _agentcli agentcli
"""


def _zsh_desc(text: str) -> str:
    return text.replace("\\", "\\\\").replace(":", "\\:").replace("\n", " ")


def _zsh_value(kind: str, choices: list[str]) -> str:
    if choices:
        return f"compadd -- {' '.join(_q(c) for c in choices)}"
    if kind.startswith("dyn:"):
        return f"_agentcli_values {kind[4:]}"
    return {"dir": "_files -/", "file": "_files"}.get(kind, "_message value")


def zsh() -> str:
    nodes = command_tree()
    descend, many = _patterns(nodes)
    values, flags, words = [], [], []
    for n in nodes:
        for o in n.options:
            if o.takes_value:
                pats = "|".join(f'"{n.path}|{s}"' for s in o.names)
                values.append(f"    {pats}) {_zsh_value(_value_kind(o.metavar), o.choices)}; return;;")
        entries = " ".join(_q(f"{s}:{_zsh_desc(o.help)}") for o in n.options for s in o.names)
        flags.append(f'      "{n.path}") items=({entries});;')
        kind = _value_kind(n.positional)
        if n.children:
            cmds = " ".join(_q(f"{c}:{_zsh_desc(h)}") for c, h in n.children)
            words.append(f"    \"{n.path}\") items=({cmds}); _describe command items;;")
        elif kind or n.choices:
            words.append(f'    "{n.path}") {_zsh_value(kind, n.choices)};;')
    nl = "\n"
    return f"""#compdef agentcli
# zsh completion for agentcli (generated by `python -m agentcli.cli.completion zsh`; do not edit)
_agentcli_values() {{
  local -a vals
  vals=(${{(f)"$(agentcli __complete $1 2>/dev/null)"}})
  compadd -a vals
}}
_agentcli() {{
  local cmdpath="" w i cur="${{words[CURRENT]}}" prev="${{words[CURRENT-1]}}"
  local -a items
  for ((i = 2; i < CURRENT; i++)); do
    w="${{words[i]}}"
    [[ -z $cmdpath && $i -gt 2 ]] && break
    case "$cmdpath|$w" in
      {descend}) cmdpath="${{cmdpath:+$cmdpath }}$w";;
    esac
  done
  for ((i = CURRENT - 1; i >= 2; i--)); do
    w="${{words[i]}}"
    [[ $w == -* ]] || continue
    case "$cmdpath|$w" in
      {many}) prev="$w";;
    esac
    break
  done
  case "$cmdpath|$prev" in
{nl.join(values)}
  esac
  if [[ $cur == -* ]]; then
    case "$cmdpath" in
{nl.join(flags)}
    esac
    _describe option items
    return
  fi
  [[ -z $cmdpath && $CURRENT -gt 2 ]] && {{ _files; return }}
  case "$cmdpath" in
{nl.join(words)}
  esac
}}
_agentcli "$@"
"""


def _fish_value(kind: str, choices: list[str]) -> str:
    if choices:
        return f"-x -a {_fq(' '.join(choices))}"
    if kind.startswith("dyn:"):
        return f"-x -a '(agentcli __complete {kind[4:]} 2>/dev/null)'"
    return {"dir": "-x -a '(__fish_complete_directories)'", "file": "-r -F"}.get(kind, "-x")


def fish() -> str:
    nodes = command_tree()
    children = {n.path: [c for c, _ in n.children] for n in nodes}
    out = ["# fish completion for agentcli (generated by `python -m agentcli.cli.completion fish`; do not edit)",
           "function __agentcli_path",
           "    set -l words (commandline -opc)[2..-1]",
           "    set -l cmdpath ''",
           "    for i in (seq (count $words))",
           "        if test -z \"$cmdpath\" -a $i -gt 1",
           "            break",
           "        end",
           "        switch \"$cmdpath|$words[$i]\"",
           "            case " + " ".join(_fq(f"{p}|{c}") for p, cs in children.items() for c in cs),
           "                set cmdpath (string trim -- \"$cmdpath $words[$i]\")",
           "        end",
           "    end",
           "    echo $cmdpath",
           "end",
           "function __agentcli_at",
           "    set -l at (__agentcli_path)",
           "    test \"$at\" = \"$argv\"",
           "end",
           "function __agentcli_at_root_start",
           "    test (count (commandline -opc)) -eq 1",
           "end",
           "function __agentcli_in_list  # inside `--allowedTools A B …`: the nearest option is one of $argv",
           "    for w in (commandline -opc)[-1..2]",
           "        if string match -q -- '-*' $w",
           "            contains -- $w $argv",
           "            return",
           "        end",
           "    end",
           "    return 1",
           "end",
           "complete -c agentcli -f"]
    for n in nodes:
        cond = f"-n '__agentcli_at {_fq(n.path)[1:-1]}'" if n.path else "-n '__agentcli_at \"\"'"
        for c, h in n.children:
            at = "-n __agentcli_at_root_start" if not n.path else cond
            out.append(f"complete -c agentcli {at} -a {c} -d {_fq(h)}")
        for o in n.options:
            parts = [f"complete -c agentcli {cond}"]
            parts += [f"-l {s[2:]}" if s.startswith("--") else f"-s {s[1:]}" for s in o.names]
            if o.takes_value:
                parts.append(_fish_value(_value_kind(o.metavar), o.choices))
            parts.append(f"-d {_fq(o.help)}")
            out.append(" ".join(parts))
            if o.many:
                value = _fish_value(_value_kind(o.metavar), o.choices).removeprefix("-x ")
                out.append(f"complete -c agentcli -n '__agentcli_in_list {' '.join(o.names)}' {value}")
        kind = _value_kind(n.positional)
        if not n.children and (kind or n.choices):
            out.append(f"complete -c agentcli {cond} {_fish_value(kind, n.choices)}")
    return "\n".join(out) + "\n"


GENERATORS = {"bash": bash, "zsh": zsh, "fish": fish}


def values(kind: str, cwd: Path) -> list[str]:
    """What `agentcli __complete KIND` prints: agentcli's own data only, never a provider or the network."""
    if kind == "sessions":
        from agentcli import paths
        from agentcli.session import layout
        from agentcli.session.index import list_sessions

        rows = list_sessions(layout.sessions_dir(paths.find_project_root(cwd)))
        return [x for s in rows for x in (s.id, s.name) if x]
    if kind == "models":
        from agentcli.providers.catalog import model_names

        return sorted(model_names())
    if kind == "presets":
        from agentcli import paths
        from agentcli.settings.presets import list_presets

        return [p.name for p in list_presets(paths.find_project_root(cwd))]
    if kind == "providers":
        from agentcli.providers.catalog import KNOWN_PROVIDERS
        from agentcli.providers.profiles import load_profiles

        return sorted({*KNOWN_PROVIDERS, *load_profiles()})
    if kind == "tools":
        from agentcli.tools.registry import BUILTIN_TOOLS

        return list(BUILTIN_TOOLS)
    return []


def complete_values(argv: list[str]) -> int:
    """`agentcli __complete KIND`: one value a line; nothing (status 0) when the data cannot be read, since a
    shell completing must never show an error."""
    try:
        found = values(argv[0], Path.cwd()) if len(argv) == 1 else []
        sys.stdout.write("".join(f"{v}\n" for v in found))
    except Exception:  # completion must never print a traceback into the user's command line
        return 0
    return 0


SHELLS = tuple(GENERATORS)  # the first is `agentcli completion`'s default, as `codex completion`'s


def shipped(shell: str) -> Path | None:
    """The script shipped with agentcli: `agentcli/_completions/` in an installed wheel (pyproject.toml puts the
    repository's `completions/` there), `completions/` in a checkout."""
    pkg = Path(__file__).resolve().parent.parent
    for directory in (pkg / "_completions", pkg.parent / "completions"):
        found = directory / f"agentcli.{shell}"
        if found.is_file():
            return found
    return None


def script(shell: str) -> str:
    """`agentcli completion SHELL`: the shipped script (instant: shells run this at every start), else generated
    from the tree."""
    found = shipped(shell)
    return found.read_text(encoding="utf-8") if found is not None else GENERATORS[shell]()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in GENERATORS:
        sys.stderr.write("usage: python -m agentcli.cli.completion bash|zsh|fish\n")
        return 2
    sys.stdout.write(GENERATORS[argv[0]]())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
