"""Rules a person may remember at an approval prompt: this exact command, this command prefix (derived
from the parsed command, never wider than program + subcommand), this tool, or this path glob.

For a compound command a suggestion holds one rule per program that still needs approval, so the rule
texts shown are exactly those saved (`RulePolicy.remember` takes them one per line).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agentcli.permissions.readonly import read_only_paths
from agentcli.permissions.rules import READ_TOOLS
from agentcli.permissions.shell import ShellParseError, Word
from agentcli.permissions.unwrap import Part, analyse, join_words

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_SUBCOMMANDS = frozenset(
    {
        "git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "podman", "kubectl", "helm", "pip", "pip3",
        "uv", "poetry", "gh", "brew", "apt", "apt-get", "dotnet", "mvn", "gradle", "terraform", "systemctl",
        "conda", "rustup", "just", "make", "npx", "deno", "composer", "bundle", "rake", "mix", "swift",
    }
)
_RUNNERS = frozenset({"run", "exec", "x", "dlx", "test"})
_INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "perl", "bash", "sh", "php"})


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One way to remember an approval. `kind` is exact | prefix | tool | path."""

    kind: str
    label: str
    rules: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.rules)


def suggest_rules(tool_name: str, args: dict[str, Any], project_root: Path) -> list[Suggestion]:
    """Suggestions from narrowest to widest, without duplicates."""
    if tool_name == "Bash":
        out = _bash(str(args.get("command", "")))
    elif tool_name in EDIT_TOOLS or tool_name in READ_TOOLS:
        out = _paths(tool_name, args, project_root)
    elif tool_name in ("WebFetch",) and isinstance(args.get("url"), str):
        host = urlsplit(args["url"]).hostname or ""
        out = [Suggestion("exact", f"the domain {host}", (f"WebFetch(domain:{host})",))] if host else []
    else:
        out = []
    out.append(Suggestion("tool", f"every {tool_name} call", (tool_name,)))
    seen: set[tuple[str, ...]] = set()
    unique = []
    for s in out:
        if s.rules and s.rules not in seen:
            seen.add(s.rules)
            unique.append(s)
    return unique


def _bash(command: str) -> list[Suggestion]:
    try:
        parts = [p for p in analyse(command) if p.words and not p.opaque]
    except ShellParseError:
        return [Suggestion("exact", "this exact command", (f"Bash({command.strip()})",))]
    needing = [p for p in parts if read_only_paths(p) is None or p.writes] or parts
    if not needing:
        return []
    exact = tuple(dict.fromkeys(f"Bash({_visible(p)})" for p in needing))
    prefix = tuple(dict.fromkeys(f"Bash({prefix_of(p)} *)" for p in needing))
    return [Suggestion("exact", "this exact command", exact), Suggestion("prefix", "this command prefix", prefix)]


def _visible(part: Part) -> str:
    return part.full_text if part.privileged or part.fed else part.text


def prefix_of(part: Part) -> str:
    """`npm run test -- -w` → `npm run test`; `python -m pytest -x` → `python -m pytest`; `rm -rf x` → `rm`."""
    words = part.full if part.privileged else part.words
    start = 0
    while part.privileged and start < len(words) and (words[start].text.startswith("-") or start == 0):
        start += 1  # keep `sudo` and its options in the prefix
    head = words[: start + 1] if part.privileged else words[:1]
    rest = words[len(head) :]
    prefix = join_words([*head, *_sub(head[-1].text if head else "", rest)])
    return " ".join([*part.assigns, prefix])  # a rule must name the assignments (`FOO=1 npm test *`)


def _sub(name: str, rest: list[Word]) -> list[Word]:
    plain = [w for w in rest[:3] if not w.dynamic]
    if name in _INTERPRETERS:
        if len(plain) >= 2 and plain[0].text == "-m":
            return plain[:2]
        return plain[:1] if plain and not plain[0].text.startswith("-") else []
    if name in _SUBCOMMANDS and plain and not plain[0].text.startswith("-"):
        if plain[0].text in _RUNNERS and len(plain) > 1 and not plain[1].text.startswith("-"):
            return plain[:2]
        return plain[:1]
    return []


def _paths(tool_name: str, args: dict[str, Any], root: Path) -> list[Suggestion]:
    family = "Edit" if tool_name in EDIT_TOOLS else "Read"
    raw = next((args[k] for k in ("file_path", "notebook_path", "path") if isinstance(args.get(k), str)), None)
    if not raw:
        return []
    real = Path(os.path.realpath(os.path.join(root, os.path.expanduser(raw))))
    real_root = Path(os.path.realpath(root))
    spec = _spec(real, real_root)
    parent = _spec(real.parent, real_root).removeprefix("./")
    folder = f"{parent}/**"
    return [
        Suggestion("exact", "this file", (f"{family}({spec})",)),
        Suggestion("path", f"files under {parent}", (f"{family}({folder})",)),
    ]


def _spec(path: Path, root: Path) -> str:
    """A rule path: relative to the project root when inside it, else `//absolute`."""
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return "/" + path.as_posix()
    return "." if rel == "." else (rel if "/" in rel else f"./{rel}")
