"""Which files a shell command may delete or overwrite that git does not track: what the checkpoint before it
must capture (untracked and ignored files included) so that `/rewind` can bring them back.

`reach(command)` answers with git pathspecs relative to the project root (`.` for the whole work tree), or []
when the command deletes nothing. It reads the command as the shell splits it (simple commands, redirections);
what it cannot follow (an `eval`, a command substitution, a variable in a path, `xargs` running a deleting
program, a build tool's `clean` target) reaches the whole tree. Programs that delete from inside (a Python
script) are not seen: the undo covers commands, not every program they may start.
"""

from __future__ import annotations

import os
import shlex

_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", "(", ")", "\n"})
_REDIRECT_OVER = frozenset({">", ">|", "&>"})
_PREFIXES = frozenset({"sudo", "command", "nice", "time", "nohup", "env", "builtin", "exec", "timeout", "stdbuf",
                       "ionice", "doas"})
_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate"})
_OVERWRITERS = frozenset({"mv", "cp", "install", "ln", "rsync", "tee", "dd"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_BUILDERS = frozenset({"make", "npm", "yarn", "pnpm", "cargo", "gradle", "./gradlew", "mvn", "dotnet", "bazel",
                       "just", "task", "go"})
_CLEAN_WORDS = ("clean", "distclean", "clobber", "purge", "prune")
_WHOLE_GIT = frozenset({"clean", "stash", "restore", "switch", "checkout", "reset", "read-tree", "checkout-index"})
WHOLE = ["."]


def reach(command: str, cwd: str = "", root: str = "", depth: int = 0) -> list[str]:
    """Pathspecs (relative to `root`) of files `command`, run in `cwd`, may delete or overwrite."""
    if "`" in command or "$(" in command or depth > 3:
        return WHOLE if _mentions_deleting(command) else []
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:
        return WHOLE if _mentions_deleting(command) else []
    out: list[str] = []
    words: list[str] = []
    for i, tok in enumerate(tokens):
        if tok in _SEPARATORS:
            if words[:1] == ["cd"] and len(words) == 2 and "$" not in words[1] and not words[1].startswith("~"):
                cwd = os.path.normpath(os.path.join(cwd or root or ".", words[1]))
            out += _simple(words, cwd, root, depth)
            words = []
            continue
        if tok in _REDIRECT_OVER and i + 1 < len(tokens):
            out += _paths([tokens[i + 1]], cwd, root)
        words.append(tok)
    out += _simple(words, cwd, root, depth)
    return WHOLE if "." in out else list(dict.fromkeys(out))


def _mentions_deleting(command: str) -> bool:
    words = set(command.replace(";", " ").replace("|", " ").replace("&", " ").split())
    return bool(words & (_DELETERS | _OVERWRITERS | {"git", "find", "eval", "xargs", ">"})) or ">" in command


def _simple(words: list[str], cwd: str, root: str, depth: int) -> list[str]:
    words = _without_redirections(words)
    after_prefix = False
    while words and (("=" in words[0] and not words[0].startswith("=")) or words[0] in _PREFIXES
                     or (after_prefix and (words[0].startswith("-") or words[0].replace(".", "").isdigit()))):
        after_prefix = after_prefix or words[0] in _PREFIXES
        words = words[1:]
    if not words:
        return []
    name, args = os.path.basename(words[0]), words[1:]
    operands = [a for a in args if not a.startswith("-")]
    if name == "eval" or name == "xargs":
        return WHOLE if args else []
    if name in _SHELLS and "-c" in args:
        at = args.index("-c") + 1
        return reach(args[at], cwd, root, depth + 1) if at < len(args) else []
    if name in _DELETERS:
        return _paths(operands, cwd, root)
    if name in _OVERWRITERS:
        if name == "dd":
            return _paths([a[3:] for a in args if a.startswith("of=")], cwd, root)
        if name == "tee":
            return [] if "-a" in args or "--append" in args else _paths(operands, cwd, root)
        if name == "rsync" and any(a.startswith("--del") for a in args):
            return _paths(operands[-1:], cwd, root) or WHOLE
        return _paths(operands[-1:], cwd, root)
    if name == "find":
        if "-delete" in args or any(a in ("-exec", "-execdir", "-ok") for a in args):
            starts = [a for a in args[: next((i for i, a in enumerate(args) if a[:1] in "-(!"), len(args))]]
            return _paths(starts, cwd, root) if starts else _paths(["."], cwd, root)
        return []
    if name == "git":
        return _git(args, cwd, root)
    if name in _BUILDERS and any(w in a for a in args for w in _CLEAN_WORDS):
        return WHOLE
    return []


def _without_redirections(words: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w in ("<", ">", ">>", ">|", "&>", "<<", "<<<", ">&", "<&"):
            skip = True
            if out and out[-1].isdigit():
                out.pop()  # the descriptor of `2>file`
            continue
        out.append(w)
    return out


def _git(args: list[str], cwd: str, root: str) -> list[str]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree") else 1
    if i >= len(args):
        return []
    sub, rest = args[i], args[i + 1 :]
    if sub == "rm":
        return _paths([a for a in rest if not a.startswith("-")], cwd, root)
    if sub == "reset":
        return WHOLE if any(a in ("--hard", "--merge", "--keep") for a in rest) else []
    if sub == "stash":
        return [] if rest[:1] in (["list"], ["show"], ["apply"], ["branch"]) else WHOLE
    if sub in _WHOLE_GIT:
        return WHOLE
    return []


def _paths(words: list[str], cwd: str, root: str) -> list[str]:
    """Pathspecs relative to `root` for shell words naming files; a word the shell would expand (a variable,
    `~`) or one leading out of the project reaches the whole tree or nothing, as fits."""
    out: list[str] = []
    for w in words:
        if not w or w in ("/dev/null", "/dev/stdout", "/dev/stderr") or w.startswith("&"):
            continue
        if "$" in w or w.startswith("~"):
            return WHOLE
        full = os.path.normpath(os.path.join(cwd or root or ".", w))
        if root and (full == root or full.startswith(root.rstrip("/") + "/")):
            rel = os.path.relpath(full, root)
            out.append("." if rel == "." else rel)
        elif not root:
            out.append(os.path.normpath(w))
    return out
