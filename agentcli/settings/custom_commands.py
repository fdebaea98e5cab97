"""Custom slash commands: markdown files in `.agentcli/commands/` (project) and `$AGENTCLI_HOME/commands/`, and
Claude Code's `.claude/commands/` and `~/.claude/commands/` (`$CLAUDE_CONFIG_DIR/commands/`) beside them.

`/name args` sends the file's body with `$ARGUMENTS` replaced by `args` (and `$1`, `$2` … by single words);
a body with neither `$ARGUMENTS` nor `$1` … gets the arguments appended. Optional front matter gives
`description`, `argument-hint` and `allowed-tools`. Files in sub-folders are named `folder:name`; project commands
win over the user's. A body's `!`command`` is run before the prompt is sent and replaced by its output
(agentcli.skills.commands runs it as a Bash call: the policy decides, the sandbox confines).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from agentcli.record import record
from agentcli.settings.extensions import command_dirs

_POSITIONAL = re.compile(r"\$(\d)")
_SHELL = re.compile(r"!`([^`\n]+)`")  # Claude Code's inline command, run before the prompt is sent
MAX_FILE_BYTES = 256 * 1024


@record
class CustomCommand:
    name: str
    body: str
    path: Path
    scope: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: str = ""  # the front matter's `allowed-tools`, as written

    def shell_commands(self) -> list[str]:
        """The body's `!`command``s, in order: run before the prompt is sent (agentcli.skills.commands)."""
        return _SHELL.findall(self.body)

    def expand(self, arguments: str, outputs: Sequence[str] | None = None) -> str:
        """The prompt this command sends for `arguments`; each `!`command`` replaced by its entry in `outputs`
        (left as written without them). Arguments fill the body's own text only: neither a command's output nor
        the commands themselves (what runs is what the file says, whatever the arguments)."""
        arguments = arguments.strip()
        try:
            words = shlex.split(arguments)
        except ValueError:
            words = arguments.split()
        parts = _SHELL.split(self.body)  # text, command, text, command, …, text
        texts = [_POSITIONAL.sub(lambda m: _word(words, int(m.group(1))), t) for t in parts[0::2]]
        given = any("$ARGUMENTS" in t for t in texts)
        if given:
            texts = [t.replace("$ARGUMENTS", arguments) for t in texts]
        out = texts[0]
        for i, command in enumerate(parts[1::2]):
            out += (outputs[i] if outputs is not None else f"!`{command}`") + texts[i + 1]
        placed = given or any(_POSITIONAL.search(t) for t in parts[0::2])  # the body put them where it wanted
        return f"{out}\n\nARGUMENTS: {arguments}" if arguments and not placed else out


def _word(words: list[str], n: int) -> str:
    return words[n - 1] if 0 < n <= len(words) else ""


def load_commands(project_root: Path) -> dict[str, CustomCommand]:
    """Every custom command by name; unreadable files are skipped."""
    found: dict[str, CustomCommand] = {}
    from agentcli.settings.projectfiles import read_inside

    for scope, folder in command_dirs(project_root):
        if not folder.is_dir():
            continue
        for f in sorted(folder.rglob("*.md")):
            # A project's command that links out of it (to ~/.ssh/id_rsa …) would send that file to the model.
            raw = read_inside(f, project_root if scope == "project" else None, MAX_FILE_BYTES)
            if raw is None:
                continue
            name = ":".join(f.relative_to(folder).with_suffix("").parts)
            meta, body = parse_front_matter(raw)
            description = meta.get("description") or _first_line(body)
            found[name] = CustomCommand(name, body.strip(), f, scope, description, meta.get("argument-hint", ""),
                                        meta.get("allowed-tools", ""))
    return found


def parse_front_matter(text: str) -> tuple[dict[str, str], str]:
    """`---`-fenced `key: value` lines at the top of a file, and the rest."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    meta: dict[str, str] = {}
    for line in text[3:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            meta[key.strip().lower()] = value.strip().strip("\"'")
    rest = text[end + 4 :]
    return meta, rest.lstrip("\n")


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:80]
    return ""
