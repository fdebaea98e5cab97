"""The read-only allowlist: shell commands that look and never change anything, with the arguments that
would make them write (`sort -o`, `find -delete`, `git branch -D`, `sed -i`) rejected.

`read_only_paths(part)` returns the words naming files the command reads (the policy checks each is inside
the project), or None when the command is not known to be read-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentcli.permissions.shell import Word
from agentcli.permissions.unwrap import Part

# Commands whose arguments are never files.
_NO_PATHS = frozenset(
    {
        "echo", "printf", "pwd", "true", "false", "whoami", "id", "uname", "which", "type", "whereis", "seq",
        "sleep", "basename", "dirname", "nproc", "arch", "groups", "tty", "locale", "printenv", "test", "[",
        "[[", "((", "expr", "cal", "uptime", "free", "ps", "tr", "command", "hostname", "date", "env",
    }
)
# Commands whose non-option arguments are all files they read.
_PATHS = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "file", "stat", "du", "df", "tree", "realpath", "readlink", "nl",
        "od", "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "b2sum", "diff", "cmp",
        "comm", "cut", "column", "fold", "fmt", "rev", "tac", "strings", "cd", "pushd", "popd",
    }
)
_BAD_OPTS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output"),
    "date": ("-s", "--set"),
    "hostname": ("-F", "--file", "-b", "--boot"),
    "rg": ("--pre", "--hostname-bin"),
    "fd": ("-x", "-X", "--exec", "--exec-batch"),
    "xxd": ("-r", "--revert"),
    "tree": ("-o",),
    "diff": ("--output",),
}
_SED_SCRIPT = re.compile(r"(?:(?:\d+|\$)(?:,(?:\d+|\$))?[pd]?|(?:\d+|\$)?(?:,(?:\d+|\$))?\s*p|/[^/]*/[pd]?)")
_SED_SUBST = re.compile(r"s(.)(?:(?!\1).)*\1(?:(?!\1).)*\1[gIi0-9]*")


def read_only_paths(part: Part) -> list[Word] | None:
    """The files a read-only command reads, or None if it is not on the allowlist (or could write).
    Redirections are not judged here: the caller checks `part.writes` as file edits."""
    if part.opaque or part.privileged or part.fed or not part.words:
        return None
    name = part.words[0].text
    args = part.words[1:]
    if any(_is_option(a.text, bad) for bad in _BAD_OPTS.get(name, ()) for a in args):
        return None
    special = _SPECIAL.get(name)
    if special is not None:
        return special(args)
    if name in _NO_PATHS:
        return [] if name not in ("env", "hostname", "date") or _no_positionals(args) else None
    if name in _PATHS:
        return _positionals(args)
    return None


def _is_option(arg: str, option: str) -> bool:
    """`-o` is also in a cluster of short options (`-uo`); `--output` also as `--output=x`."""
    if option.startswith("--"):
        return arg == option or arg.startswith(option + "=")
    if arg.startswith("--") or not arg.startswith("-"):
        return False
    return option[1] in arg[1:] or arg.startswith(option)


def _no_positionals(args: list[Word]) -> bool:
    return all(a.text.startswith(("-", "+")) for a in args)


def _positionals(args: list[Word], skip_first: bool = False) -> list[Word] | None:
    out: list[Word] = []
    first = skip_first
    for a in args:
        t = a.text
        if t.startswith("-") and t != "-":
            _, eq, value = t.partition("=")
            if eq and value.startswith(("/", "~", "..")):
                out.append(Word(value))
            continue
        if first:
            first = False
            continue
        if a.dynamic:
            return None
        out.append(a)
    return out


def _sort(args: list[Word]) -> list[Word] | None:
    return _positionals(args)


def _uniq(args: list[Word]) -> list[Word] | None:
    pos = _positionals(args)
    return pos if pos is not None and len(pos) <= 1 else None  # a second file is an output


def _xxd(args: list[Word]) -> list[Word] | None:
    return _uniq(args)


_GREP_ARG_OPTS = frozenset(
    {"-e", "--regexp", "-f", "--file", "-m", "--max-count", "-A", "-B", "-C", "-g", "--glob", "-t", "--type"}
)


def _grep(args: list[Word]) -> list[Word] | None:
    explicit = False
    files: list[Word] = []
    rest: list[Word] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t in _GREP_ARG_OPTS:
            explicit |= t in ("-e", "--regexp", "-f", "--file")
            if t in ("-f", "--file") and i + 1 < len(args):
                files.append(args[i + 1])
            i += 2
            continue
        explicit |= t.startswith("--regexp=")
        rest.append(args[i])
        i += 1
    pos = _positionals(rest, skip_first=not explicit)
    return None if pos is None or any(f.dynamic for f in files) else pos + files


def _find(args: list[Word]) -> list[Word] | None:
    paths: list[Word] = []
    in_exec = False
    started = False
    for a in args:
        t = a.text
        if in_exec:
            in_exec = t not in (";", "+")
            continue
        if t in ("-exec", "-execdir", "-ok", "-okdir"):
            in_exec = True  # the exec'd command is a part of its own, judged separately
            continue
        if t in ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls"):
            return None
        if t.startswith(("-", "(", "!", ")")):
            started = True
        elif not started:
            if a.dynamic:
                return None
            paths.append(a)
    return paths or [Word(".")]


def _sed(args: list[Word]) -> list[Word] | None:
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
        elif t in ("-n", "-E", "-r", "--quiet", "--silent", "-s", "-u", "-z"):
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
    return files if script_seen else None


def _safe_sed(script: str) -> bool:
    cmds = [c.strip() for c in script.replace("\n", ";").split(";") if c.strip()]
    return bool(cmds) and all(_SED_SCRIPT.fullmatch(c) or _SED_SUBST.fullmatch(c) for c in cmds)


def _jq(args: list[Word]) -> list[Word] | None:
    if any(a.text in ("-f", "--from-file", "--rawfile", "--slurpfile") for a in args):
        return None
    return _positionals(args, skip_first=True)


_GIT_READ = frozenset(
    {
        "status", "diff", "log", "show", "blame", "shortlog", "describe", "rev-parse", "ls-files", "ls-tree",
        "cat-file", "grep", "merge-base", "name-rev", "count-objects", "whatchanged", "rev-list",
        "for-each-ref", "show-ref", "check-ignore", "diff-tree", "diff-files", "diff-index", "version",
    }
)
_GIT_BRANCH_FLAGS = frozenset(
    {"-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--show-current", "--no-color", "-l", "--list"}
)


def _git(args: list[Word]) -> list[Word] | None:
    paths: list[Word] = []
    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        t = args[i].text
        if t == "-C" and i + 1 < len(args):
            paths.append(args[i + 1])
            i += 2
        elif t in ("--no-pager", "-P", "--no-optional-locks"):
            i += 1
        else:
            return None  # -c, --git-dir, --exec-path … can make git run anything
    if i >= len(args) or any(a.dynamic for a in args[i:]):
        return None
    sub, rest = args[i].text, [a.text for a in args[i + 1 :]]
    if any(r.startswith(("--output", "--ext-diff", "-O", "--open-files-in-pager")) for r in rest):
        return None
    ok = sub in _GIT_READ or _git_listing(sub, rest)
    if ok and "--no-index" in rest:  # compares files anywhere, not the repository
        paths += [a for a in args[i + 1 :] if not a.text.startswith("-")]
    return paths if ok else None


def _git_listing(sub: str, rest: list[str]) -> bool:
    """Subcommands that only list when given no action (`git branch`, `git tag -l`, `git stash list`)."""
    if sub == "branch":
        listing = any(r in ("-l", "--list") for r in rest)
        return all(r in _GIT_BRANCH_FLAGS or (listing and not r.startswith("-")) for r in rest)
    if sub == "tag":
        return not rest or rest[0] in ("-l", "--list")
    if sub == "remote":
        return not rest or rest == ["-v"] or (bool(rest) and rest[0] in ("show", "get-url"))
    if sub in ("stash", "worktree"):
        return bool(rest) and rest[0] in ("list", "show")
    if sub == "submodule":
        return bool(rest) and rest[0] == "status"
    if sub == "reflog":
        return not rest or rest[0] == "show"
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "--list", "-l", "--get-regexp")
    return False


_SPECIAL: dict[str, Callable[[list[Word]], list[Word] | None]] = {
    "sort": _sort,
    "uniq": _uniq,
    "xxd": _xxd,
    "grep": _grep,
    "egrep": _grep,
    "fgrep": _grep,
    "rg": _grep,
    "find": _find,
    "fd": lambda args: _positionals(args, skip_first=True),
    "sed": _sed,
    "jq": _jq,
    "git": _git,
}
