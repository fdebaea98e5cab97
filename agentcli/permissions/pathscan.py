"""What a shell word or a recursive reader reaches on disk, for the path rules.

`expand(text, cwd)`: the paths a word with wildcards or braces names, as bash would expand it now
(`.en[v]` → `.env`, `.agentcl?/x` → `.agentcli/x`), so path rules see the files, not the pattern.
`protected_under(root, …)`: the first protected file a recursive reader (`grep -r`, `rg`, `find -exec cat`)
would reach under `root`, walking as that reader walks.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_MATCHES = 500
MAX_WALK = 20_000
_BRACES = re.compile(r"\{([^{}]*)\}")


def expand(text: str, cwd: str | None) -> list[str] | None:
    """Absolute paths `text` expands to (the literal path when nothing matches, as bash leaves it), or None
    when there are too many to check, or a relative one where the working directory is unknown (`cwd` None).
    A `~` that brace expansion puts at the start of a word is the home directory, as bash expands it after."""
    out: list[str] = []
    for pattern in _braces(text):
        if pattern.startswith("~"):
            pattern = os.path.expanduser(pattern)
        if not os.path.isabs(pattern):
            if cwd is None:
                return None
            pattern = os.path.join(cwd, pattern)
        if not any(c in pattern for c in "*?["):
            out.append(pattern)
            continue
        found = _glob(pattern)
        if found is None:
            return None
        out.extend(found or [pattern])
        if len(out) > MAX_MATCHES:
            return None
    return out


def _braces(text: str) -> list[str]:
    """Brace expansion (`.{env,x}` → `.env .x`); a range (`{a..z}`) becomes a wildcard."""
    m = _BRACES.search(text)
    if m is None:
        return [text]
    body = m.group(1)
    if ".." in body and "," not in body:
        return _braces(text[: m.start()] + "*" + text[m.end() :])
    if "," not in body:
        return [text]
    out: list[str] = []
    for choice in body.split(","):
        out.extend(_braces(text[: m.start()] + choice + text[m.end() :]))
        if len(out) > MAX_MATCHES:
            break
    return out


def _glob(pattern: str) -> list[str] | None:
    parts = pattern.split("/")
    current = ["/"]
    for comp in parts[1:]:
        if not comp:
            continue
        nxt: list[str] = []
        if not any(c in comp for c in "*?["):
            nxt = [os.path.join(d, comp) for d in current]
        else:
            rx = _component(comp)
            for d in current:
                try:
                    names = os.listdir(d)
                except OSError:
                    continue
                nxt.extend(os.path.join(d, n) for n in names if rx.fullmatch(n) and _dot_ok(comp, n))
        if len(nxt) > MAX_MATCHES:
            return None
        current = nxt
    return [p for p in current if os.path.lexists(p)]


def _dot_ok(comp: str, name: str) -> bool:
    # bash's wildcards do not match a leading dot unless the pattern spells it (a class may: be generous)
    return not name.startswith(".") or comp.startswith((".", "["))


def _component(comp: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(comp):
        c = comp[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and "]" in comp[i + 2 :]:
            end = comp.index("]", i + 2)
            body = comp[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out), re.S)
    except re.error:
        return re.compile(".*", re.S)


@dataclass(slots=True)
class _Listing:
    """One directory as a walk saw it: its identity stamp (device, inode, mtime, ctime: any entry added,
    removed or renamed changes it, and ctime cannot be set back), the first protected entry, the sub-directories
    and the links, with dot entries left out or not."""

    stamp: tuple[int, int, int, int]
    hit: str | None
    dirs: list[str]
    links: list[str]


WalkCache = dict[tuple[str, bool, int, tuple[str, ...]], _Listing]


def protected_under(
    root: str,
    denied: Callable[[str], bool],
    inside: Callable[[str], bool],
    *,
    follow: bool,
    hidden: bool,
    only: tuple[str, ...] = (),
    cache: WalkCache | None = None,
) -> str | None:
    """The first file under `root` a recursive reader would read that `denied` protects — or a symlink it
    would follow out of the project — else None. Gives a reason string when the tree is too large to check.
    `cache` (kept by the caller while the rules stay the same) saves listing directories that did not change."""
    if denied(root):
        return root
    cache = {} if cache is None else cache
    stack = [root]
    seen = 0
    while stack:
        d = stack.pop()
        listing = _listing(d, denied, hidden, only, cache)
        if listing is None:
            continue
        seen += len(listing.dirs) + len(listing.links) + 1
        if seen > MAX_WALK:
            return f"more than {MAX_WALK} files under {root} to check for protected ones"
        if listing.hit is not None:
            return listing.hit
        if follow:
            for link in listing.links:
                # a reader that does not follow links below its starting points never opens them
                target = os.path.realpath(link)
                if denied(target) or not inside(target):
                    return link
        stack.extend(listing.dirs)
    return None


def _listing(
    d: str, denied: Callable[[str], bool], hidden: bool, only: tuple[str, ...], cache: WalkCache
) -> _Listing | None:
    try:
        st = os.stat(d)
    except OSError:
        return None
    stamp = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    key = (d, hidden, id(denied), only)
    found = cache.get(key)
    if found is not None and found.stamp == stamp:
        return found
    try:
        entries = list(os.scandir(d))
    except OSError:
        return None
    listing = _Listing(stamp, None, [], [])
    for e in entries:
        if not hidden and e.name.startswith("."):
            continue
        if e.is_symlink():
            listing.links.append(e.path)
            continue
        is_dir = e.is_dir(follow_symlinks=False)
        if not is_dir and only and not any(fnmatch.fnmatchcase(e.name, g) for g in only):
            continue  # a file the reader's --include leaves out
        if listing.hit is None and denied(e.path):
            listing.hit = e.path
        elif is_dir:
            listing.dirs.append(e.path)
    if len(cache) > 50_000:
        cache.clear()
    cache[key] = listing
    return listing
