"""`find` on the read-only allowlist: known predicates and actions only. `-exec`/`-execdir` commands are
parts of their own (agentcli.permissions.unwrap), judged with the directories find walks as what they read."""

from __future__ import annotations

import re

from agentcli.permissions.reads import Reads
from agentcli.permissions.shell import Word

_VALUE = frozenset(
    {
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype",
        "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-perm", "-user", "-group", "-uid",
        "-gid", "-links", "-inum", "-lname", "-ilname", "-maxdepth", "-mindepth", "-regextype", "-used",
        "-context", "-fstype", "-printf", "-newer", "-anewer", "-cnewer", "-samefile",
    }
)
_FLAG = frozenset(
    {
        "-empty", "-executable", "-readable", "-writable", "-nouser", "-nogroup", "-false", "-true", "-depth",
        "-mount", "-xdev", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-follow", "-daystart",
        "-warn", "-nowarn", "-print", "-print0", "-ls", "-prune", "-quit", "-not", "-a", "-and", "-o", "-or",
        "!", "(", ")", ",",
    }
)
_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_NEWER_XY = re.compile(r"-newer[aBcm][aBcmt]")
_START = frozenset({"-H", "-L", "-P"})


def start_points(args: list[Word]) -> tuple[list[Word], bool, int]:
    """find's starting points (`.` when none), whether it follows symlinks, and where the expression starts."""
    i, follow = 0, False
    while i < len(args) and (args[i].text in _START or args[i].text.startswith(("-D", "-O"))):
        follow |= args[i].text == "-L"
        i += 2 if args[i].text == "-D" else 1
    roots: list[Word] = []
    while i < len(args) and not args[i].text.startswith(("-", "(", "!", ")", ",")):
        roots.append(args[i])
        i += 1
    follow |= any(a.text == "-follow" for a in args[i:])
    return roots or [Word(".")], follow, i


def find_reads(args: list[Word]) -> Reads | None:
    roots, _, i = start_points(args)
    if any(r.dynamic for r in roots):
        return None
    while i < len(args):
        t = args[i].text
        if t in _EXEC:
            while i < len(args) and args[i].text not in (";", "+"):
                i += 1
            i += 1
        elif t in _VALUE or _NEWER_XY.fullmatch(t):
            i += 2
        elif t in _FLAG:
            i += 1
        else:
            return None  # -delete, -fprint, -fls, -files0-from, -D … and anything unknown
    return Reads(roots)
