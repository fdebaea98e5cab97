"""The project files a hook command runs, and whether each is still the one the user trusted.

Hooks run as the user, outside the tool sandbox, as Claude Code runs them (a Stop hook may post to a local
notifier, a formatter may live anywhere). What keeps a hostile model from using a hook as its way out of the
sandbox is this: a file under the project (where the model can write) that a hook command names or runs is used
only while its content is the one the user trusted, pinned by digest with the project's other files
(agentcli.settings.trust). The class, not one example: every word of the command is read as a path after
`$CLAUDE_PROJECT_DIR`/`~` expansion (the script of `bash x.sh`, `python3 x.py`, `"$CLAUDE_PROJECT_DIR"/.claude/
hooks/y`, an `--opt=path`, a relative `./x`), and a bare command name is looked up on the hook's PATH as bash
would (a PATH entry inside the project, or a relative one, counts). A path that is a symlink under the project
counts too, whatever it points at, since the model could point it elsewhere. Over-matching only asks more often.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;", "!", "{", "}"})
_PREFIXES = frozenset({"exec", "command", "env", "nohup", "time", "sudo", "xargs", "then", "do", "else"})
# What a task runner runs from the working directory without naming it: its recipe file, and the tools it
# installed in the project (`npx prettier` runs node_modules/.bin/prettier, `uv run ruff` .venv/bin/ruff).
_RUNNER_FILES: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "makefile", "GNUmakefile"), "just": ("justfile", "Justfile", ".justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"), "npm": ("package.json",), "npx": ("package.json",),
    "pnpm": ("package.json",), "yarn": ("package.json",), "bun": ("package.json",), "uv": ("pyproject.toml",),
    "poetry": ("pyproject.toml",), "pdm": ("pyproject.toml",), "hatch": ("pyproject.toml",),
    "tox": ("tox.ini",), "nox": ("noxfile.py",), "pre-commit": (".pre-commit-config.yaml",),
    "cargo": ("Cargo.toml", "build.rs"), "rake": ("Rakefile",), "gradle": ("build.gradle", "build.gradle.kts"),
}
_TOOL_DIRS = ("node_modules/.bin", ".venv/bin", "venv/bin")


def project_files(command: str, project_dir: Path, env: dict[str, str]) -> list[Path]:
    """Every file under `project_dir` that `command` (run with that directory as its working directory) names
    or runs, each as a path under `project_dir` (lexically), in order, without repeats."""
    root = Path(os.path.abspath(project_dir))
    real_root = root.resolve()
    found: dict[Path, None] = {}
    words = [(_expand(word, env), at_command) for word, at_command in _words(command)]
    # `cd sub && ./x.sh`: a relative path may be taken from any directory the command changes to
    bases = [root, *(root / words[i + 1][0] for i, (w, at) in enumerate(words[:-1]) if at and w in ("cd", "pushd"))]
    for word, at_command in words:
        for base in bases:
            found.update(dict.fromkeys(_under(_candidates(word, base, env, at_command), root, real_root)))
    found.update(dict.fromkeys(_under(_implied(words, root), root, real_root)))
    return list(found)


def _under(paths: list[Path], root: Path, real_root: Path) -> list[Path]:
    """Those of `paths` that are files under the project, as paths under it."""
    return [p for p in (_inside(c, root, real_root) for c in paths) if p is not None]


def _implied(words: list[tuple[str, bool]], root: Path) -> list[Path]:
    """Files run without being named: a runner's recipe file and project-installed tools after it, and the
    module `python -m NAME` imports from the working directory."""
    out: list[Path] = []
    runner = False
    for i, (word, at_command) in enumerate(words):
        name = os.path.basename(word)
        if at_command and name in _RUNNER_FILES:
            out += [root / f for f in _RUNNER_FILES[name]]
            runner = True
        elif runner and "/" not in word and not word.startswith("-"):
            out += [root / d / word for d in _TOOL_DIRS]
        if word == "-m" and i + 1 < len(words):
            module = words[i + 1][0].split(".")[0]
            out += [root / f"{module}.py", root / module / "__init__.py", root / module / "__main__.py"]
        if at_command and name not in _RUNNER_FILES:
            runner = False
    return out


def _words(command: str) -> list[tuple[str, bool]]:
    """The command's words, each with whether it stands where bash looks up a command."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: bash would refuse it too; still read every word as a path
        tokens = command.split()
    out: list[tuple[str, bool]] = []
    at_command = True
    for token in tokens:
        if token in _SEPARATORS or all(c in ";&|()" for c in token):
            at_command = True
            continue
        if at_command and "=" in token and not token.startswith(("=", "/", ".")) and "/" not in token.split("=")[0]:
            out.append((token.split("=", 1)[1], False))  # VAR=value before the command
            continue
        out.append((token, at_command))
        if "=" in token:
            out.append((token.split("=", 1)[1], False))
        at_command = token in _PREFIXES
    return out


def _expand(word: str, env: dict[str, str]) -> str:
    word = _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), word)
    if word.startswith("~/") and env.get("HOME"):
        word = env["HOME"] + word[1:]
    return word


def _candidates(word: str, root: Path, env: dict[str, str], at_command: bool) -> list[Path]:
    if not word or "\0" in word:
        return []
    if "/" in word:
        return [Path(word) if word.startswith("/") else root / word]
    out = [root / word]  # `python3 x.py`: a bare word is a file in the working directory
    if at_command:
        on_path = _which(word, root, env.get("PATH", os.defpath))
        if on_path is not None:
            out.append(on_path)
    return out


def _which(name: str, cwd: Path, path: str) -> Path | None:
    """What bash would run for a bare `name`: the first executable file on PATH, relative entries (and an empty
    one, meaning the working directory) taken from the hook's working directory."""
    for entry in path.split(os.pathsep):
        base = Path(entry) if entry.startswith("/") else cwd / entry
        candidate = base / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _inside(path: Path, root: Path, real_root: Path) -> Path | None:
    """`path` as a path under the project when it is an existing file there (lexically, or once symlinks are
    followed); None otherwise."""
    lexical = Path(os.path.normpath(path))
    try:
        if lexical.is_relative_to(root) and lexical != root and lexical.is_file():
            return lexical
        real = lexical.resolve()
    except (OSError, RuntimeError):
        return None
    if real.is_relative_to(real_root) and real.is_file():
        return root / real.relative_to(real_root)
    return None
