"""The read-only allowlist: shell commands that look and never change anything.

Every option must be known to be safe (agentcli.permissions.optspecs): an option not listed, an environment
assignment not known to be harmless (unwrap), or an argument that could write (`uniq a b`, `sort -o`) makes
the command "not known to be read-only" and it asks. `read_only_paths(part)` returns what the command reads
— files, directories it reads recursively (`grep -r`, `rg`, `find -exec cat {} +`), and for git the
directory whose repository configuration must be checked — or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentcli.permissions.gitcheck import git_reads
from agentcli.permissions.optspecs import Scanned, scan, spec
from agentcli.permissions.reads import Reads
from agentcli.permissions.shell import Word
from agentcli.permissions.unwrap import Part

# Commands whose arguments are never files, and whose options cannot write or run anything.
_NO_PATHS = frozenset(
    {
        "echo", "printf", "pwd", "true", "false", "whoami", "id", "uname", "which", "type", "whereis", "seq",
        "sleep", "basename", "dirname", "nproc", "arch", "groups", "tty", "locale", "printenv", "test", "[",
        "[[", "((", "expr", "cal", "uptime", "free", "ps", "tr", "command", "hostname", "date", "env",
    }
)
# Commands whose positional arguments are all files they read (their options: optspecs).
_PATHS = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "file", "stat", "du", "df", "tree", "realpath", "readlink", "nl",
        "od", "hexdump", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "cksum",
        "b2sum", "diff", "cmp", "comm", "cut", "column", "fold", "fmt", "rev", "tac", "strings", "cd", "pushd",
        "popd", "sort",
    }
)
_PS_VALUES = frozenset({"-o", "-O", "-p", "-C", "-u", "-U", "-g", "-G", "-t", "-q", "-s", "--format", "--sort",
                        "--pid", "--ppid", "--user", "--User", "--group", "--Group", "--tty", "--sid", "--cols",
                        "--columns", "--rows", "--width"})
_SED_SCRIPT = re.compile(r"(?:(?:\d+|\$)(?:,(?:\d+|\$))?[pd]?|(?:\d+|\$)?(?:,(?:\d+|\$))?\s*p|/[^/]*/[pd]?)")
_SED_SUBST = re.compile(r"s(.)(?:(?!\1).)*\1(?:(?!\1).)*\1[gIi0-9]*")
_JQ_FILES = re.compile(r"\b(?:import|include|input_filename|get_search_list|\$__loc__)\b")


def read_only_paths(part: Part) -> Reads | None:
    """What a read-only command reads, or None if it is not on the allowlist (or could write).
    Redirections are not judged here: the caller checks `part.writes` as file edits."""
    if part.opaque or part.privileged or part.fed or part.assigns or not part.words:
        return None
    name = part.words[0].text
    args = part.words[1:]
    special = _SPECIAL.get(name)
    if special is not None:
        return special(args)
    if name in _NO_PATHS:
        return Reads() if _inert(name, [a.text for a in args]) else None
    if name in _PATHS:
        return _files(name, args)
    return None


def _inert(name: str, texts: list[str]) -> bool:
    """Programs whose arguments are text, not files: only the options that assign or read are refused."""
    if name in ("test", "["):
        return not any(t in ("-v", "-R") for t in texts)  # `-v 'a[$(cmd)]'` evaluates the subscript
    if name == "printf":
        return not (texts and texts[0].startswith("-v"))  # assigns a variable, subscripts evaluated
    if name == "env":
        return all(t in ("-0", "--null", "-i", "--ignore-environment") for t in texts)
    if name == "ps":
        # BSD `e` (`ps eww`, `ps axe`) prints every process's environment, agentcli's provider keys included;
        # a value (`-C sleep`, `-o etime`) is not a BSD option
        return not any("e" in t and t.isalpha() and not (i and texts[i - 1] in _PS_VALUES)
                       for i, t in enumerate(texts))
    if name in ("hostname", "date"):
        s = spec(name)
        scanned = scan(texts, s) if s is not None else None
        # a positional sets the host name or the clock; `date +FORMAT` only formats
        return scanned is not None and all(name == "date" and texts[i].startswith("+") for i in scanned.positionals)
    return True


def _words(args: list[Word], scanned: Scanned, indices: list[int]) -> list[Word] | None:
    out: list[Word] = []
    for i in indices:
        if args[i].dynamic:
            return None
        out.append(args[i])
    for i, offset in scanned.option_paths:
        if args[i].dynamic:
            return None
        out.append(Word(args[i].text[offset:], tilde=args[i].text[offset:].startswith("~"), glob=args[i].glob))
    return out


def _files(name: str, args: list[Word], recursive: bool = False) -> Reads | None:
    s = spec(name)
    scanned = scan([a.text for a in args], s) if s is not None else None
    if scanned is None:
        return None
    if name == "strings" and any(args[i].text.startswith("@") for i in scanned.positionals):
        return None  # `@file` reads options from a file
    paths = _words(args, scanned, scanned.positionals)
    if paths is None:
        return None
    if name == "diff" and ("-r" in scanned.options or "--recursive" in scanned.options):
        return Reads(paths, trees=[p for p in paths if p.text != "-"])
    return Reads(paths)


def _uniq(args: list[Word]) -> Reads | None:
    reads = _files("uniq", args)
    return reads if reads is not None and len(reads.paths) <= 1 else None  # a second file is an output


_XXD_FLAGS = frozenset(
    {"-a", "-autoskip", "-b", "-bits", "-C", "-capitalize", "-E", "-EBCDIC", "-e", "-i", "-include", "-p",
     "-ps", "-postscript", "-plain", "-u", "-uppercase", "-d", "-decimal"}
)
_XXD_VALUES = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-n", "-name", "-o", "-offset", "-s",
                         "-seek", "-R"})


def _xxd(args: list[Word]) -> Reads | None:
    files: list[Word] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t in _XXD_VALUES:
            i += 2
            continue
        if t.startswith("-") and t != "-" and t not in _XXD_FLAGS:
            return None  # -r writes, and anything unknown
        if not t.startswith("-") or t == "-":
            if args[i].dynamic:
                return None
            files.append(args[i])
        i += 1
    return Reads(files) if len(files) <= 1 else None  # a second file is an output


def _grep(args: list[Word], name: str = "grep") -> Reads | None:
    s = spec(name)
    assert s is not None
    scanned = scan([a.text for a in args], s)
    if scanned is None:
        return None
    opts = set(scanned.options)
    explicit = bool(opts & {"-e", "-f", "--regexp", "--file", "--files", "--type-list"})
    positionals = scanned.positionals if explicit else scanned.positionals[1:]
    paths = _words(args, scanned, positionals)
    if paths is None:
        return None
    if name == "rg":
        return _rg(args, paths, scanned)
    recurse = [scanned.values.get(o, []) for o in ("-d", "--directories")]
    recursive = bool(opts & {"-r", "-R", "--recursive", "--dereference-recursive"}) or any(
        args[i].text[off:] == "recurse" for vals in recurse for i, off in vals
    )
    if not recursive:
        return Reads(paths)
    files = [p for p in paths if not _from_option(p, args)]
    roots = [p for p in files if p.text != "-"] or [Word(".")]
    only = _values(args, scanned, ("--include",))
    return Reads(paths, trees=roots, follow=bool(opts & {"-R", "--dereference-recursive"}), only=only)


def _values(args: list[Word], scanned: Scanned, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(args[i].text[off:] for name in names for i, off in scanned.values.get(name, []))


def _from_option(word: Word, args: list[Word]) -> bool:
    return all(word is not a for a in args)


def _rg(args: list[Word], paths: list[Word], scanned: Scanned) -> Reads:
    opts = scanned.options
    hidden = any(o in ("--hidden", "-.", "-g", "--glob", "--iglob") for o in opts) or (
        opts.count("-u") + opts.count("--unrestricted") >= 2
    )
    globs = _values(args, scanned, ("-g", "--glob", "--iglob"))
    positive = tuple(g for g in globs if not g.startswith("!"))
    # only name globs narrow the walk here; a path glob (`sub/**`) is matched against paths, so it does not
    only = positive if positive and not any("/" in g or g.startswith("**") for g in positive) else ()
    positionals = [p for p in paths if p.text != "-"]
    follow = "-L" in opts or "--follow" in opts
    return Reads(paths, trees=positionals or [Word(".")], follow=follow, hidden=hidden, only=only)


def _find(args: list[Word]) -> Reads | None:
    from agentcli.permissions.findcheck import find_reads

    return find_reads(args)


def _fd(args: list[Word]) -> Reads | None:
    s = spec("fd")
    assert s is not None
    scanned = scan([a.text for a in args], s)
    if scanned is None:
        return None
    paths = _words(args, scanned, scanned.positionals[1:])
    return None if paths is None else Reads(paths)


def _sed(args: list[Word]) -> Reads | None:
    script_seen = False
    files: list[Word] = []
    expect_script = False
    for a in args:
        t = a.text
        if expect_script:
            if not _safe_sed(t):
                return None
            script_seen, expect_script = True, False
        elif t in ("-e", "--expression"):
            expect_script = True
        elif t in ("-n", "-E", "-r", "--quiet", "--silent", "-s", "-u", "-z", "--posix", "--sandbox", "--debug"):
            continue
        elif t.startswith("-"):
            return None  # -i, -f, --in-place …
        elif not script_seen:
            if not _safe_sed(t):
                return None
            script_seen = True
        else:
            if a.dynamic:
                return None
            files.append(a)
    return Reads(files) if script_seen else None


def _safe_sed(script: str) -> bool:
    cmds = [c.strip() for c in script.replace("\n", ";").split(";") if c.strip()]
    return bool(cmds) and all(_SED_SCRIPT.fullmatch(c) or _SED_SUBST.fullmatch(c) for c in cmds)


def _jq(args: list[Word]) -> Reads | None:
    s = spec("jq")
    assert s is not None
    scanned = scan([a.text for a in args], s)
    if scanned is None:
        return None
    if any(a.dynamic or _JQ_FILES.search(a.text) for a in args):
        return None  # modules and data files come from a search path outside the project
    positionals = scanned.positionals
    if "--args" in scanned.options or "--jsonargs" in scanned.options:
        positionals = positionals[:1]  # the rest are values, not files
    paths = _words(args, scanned, positionals[1:])
    return None if paths is None else Reads(paths)


_SPECIAL: dict[str, Callable[[list[Word]], Reads | None]] = {
    "uniq": _uniq,
    "xxd": _xxd,
    "grep": _grep,
    "egrep": lambda args: _grep(args, "egrep"),
    "fgrep": lambda args: _grep(args, "fgrep"),
    "rg": lambda args: _grep(args, "rg"),
    "find": _find,
    "fd": _fd,
    "sed": _sed,
    "jq": _jq,
    "git": git_reads,
}

__all__ = ["_NO_PATHS", "Reads", "read_only_paths"]
