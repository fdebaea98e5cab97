"""What a typed prompt carries besides its text: `@path` file contents, expanded pastes, `!cmd` output."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.core.parts import ShellScope
    from agentcli.llm.messages import Message
    from agentcli.settings.config import Settings
    from agentcli.tools.base import ToolContext

MAX_ATTACH_CHARS = 100_000
MAX_SHELL_CHARS = 30_000
PASTE_LINES = 10
PASTE_CHARS = 1_000
_MENTION = re.compile(r"(?<![\w@])@(\"[^\"]+\"|[^\s\"]+)")
_PASTE = re.compile(r"\[Pasted text #(\d+) \+\d+ lines\]")
_SHELL_INTRO = "The user ran a shell command in the terminal:\n$ "
_SHELL = re.compile(re.escape(_SHELL_INTRO) + r"(.*)\n\(exit status (-?\d+)\)\n<output>\n(.*)\n</output>", re.S)


def is_large_paste(text: str) -> bool:
    return text.count("\n") >= PASTE_LINES or len(text) > PASTE_CHARS


def paste_placeholder(n: int, text: str) -> str:
    return f"[Pasted text #{n} +{text.count(chr(10)) + 1} lines]"


def expand_pastes(text: str, pastes: dict[int, str]) -> str:
    return _PASTE.sub(lambda m: pastes.get(int(m.group(1)), m.group(0)), text)


def mentioned_paths(text: str, cwd: Path) -> list[Path]:
    """Existing files and folders named with `@` in `text`, in order, without repeats. A name inside `cwd` that
    is really a link out of it is left out: a repository can call `~/.ssh/id_rsa` README.md, and the user who
    types `@README.md` means the project's file (a path typed outside the project is attached as asked)."""
    out: list[Path] = []
    for m in _MENTION.finditer(text):
        name = m.group(1).strip('"').rstrip(".,;:!?)")
        path = (cwd / name).expanduser()
        try:
            if not path.exists() or path in out or _links_out(path, cwd):
                continue
        except (OSError, ValueError, RuntimeError):
            continue
        out.append(path)
    return out


def _links_out(path: Path, cwd: Path) -> bool:
    import os

    named_inside = Path(os.path.normpath(path)).is_relative_to(cwd)
    return named_inside and not path.resolve().is_relative_to(cwd.resolve())


def attachment(path: Path, cwd: Path) -> str:
    """A mentioned file's content (or a folder's listing) as the model should read it."""
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        rel = path
    if path.is_dir():
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        return f"Contents of the folder {rel}/ (attached with @):\n" + "\n".join(names[:500])
    from agentcli.settings.projectfiles import read_inside

    text = read_inside(path, None, 4 * MAX_ATTACH_CHARS + 4)  # bounded, and never a FIFO (it would block)
    if text is None:
        return f"Could not attach {rel}: not a readable regular file"
    if "\0" in text[:8192]:
        return f"{rel} is a binary file; not attached."
    cut = ""
    if len(text) > MAX_ATTACH_CHARS:
        text, cut = text[:MAX_ATTACH_CHARS], f"\n[… cut at {MAX_ATTACH_CHARS} characters; read the rest with Read]"
    return f"Contents of {rel} (attached with @):\n```\n{text}\n```{cut}"


def whole_attachments(prompt: str, cwd: Path) -> list[Path]:
    """The text files `prompt` attaches whole (not cut, not images or folders): what the model has then read,
    as with Read (Edit and Write may change them)."""
    from agentcli.llm.images import is_image

    out = []
    for p in mentioned_paths(prompt, cwd):
        try:
            small = p.is_file() and p.stat().st_size <= MAX_ATTACH_CHARS
        except OSError:
            continue
        if small and not is_image(p):
            out.append(p)
    return out


def build_message(prompt: str, cwd: Path, context: list[str], *, images: bool = False) -> Message:
    """The user message for `prompt`: pending context (shell output), attachments (images as images when the
    model takes them), then the prompt."""
    from agentcli.llm.images import is_image, mentioned_image
    from agentcli.llm.messages import ContentBlock, Message, TextBlock

    blocks: list[ContentBlock] = [TextBlock(c) for c in context]
    blocks.extend(mentioned_image(p, images) if is_image(p) else TextBlock(attachment(p, cwd))
                  for p in mentioned_paths(prompt, cwd))
    blocks.append(TextBlock(prompt))
    return Message("user", tuple(blocks))


async def run_shell(command: str, cwd: Path, scope: ShellScope) -> tuple[int, str]:
    """Run `command` in the user's shell, under the session's sandbox and with its cleaned environment (what
    it prints goes to the model); (exit status, combined output, cut to a sane size)."""
    from agentcli.proc.groups import run_capture

    argv, env = ["/bin/sh", "-c", command], dict(scope.env or {})
    if scope.sandbox is not None:
        from agentcli.sandbox.started import capture

        status, out = await capture(scope.sandbox, argv, cwd, env)
    else:
        status, out, _ = await run_capture(argv, cwd, merge_stderr=True, env=env)
    text = out.decode("utf-8", "replace")
    if len(text) > MAX_SHELL_CHARS:
        text = "[… earlier output cut]\n" + text[-MAX_SHELL_CHARS:]
    return status, text


def shell_context(command: str, status: int, output: str) -> str:
    """How a `!command` the user ran reaches the model (on the next message)."""
    return (
        f"The user ran a shell command in the terminal:\n$ {command}\n(exit status {status})\n"
        f"<output>\n{output.rstrip()}\n</output>"
    )


def parse_shell_context(text: str) -> tuple[str, int, str] | None:
    """(command, status, output) of a block made by `shell_context`, for showing it again on resume."""
    found = _SHELL.fullmatch(text) if text.startswith(_SHELL_INTRO) else None
    return (found.group(1), int(found.group(2)), found.group(3)) if found else None


def typed_text(blocks: list[str]) -> str:
    """What the person typed, from a prompt's text blocks: without the `@file` contents, the `!cmd` output
    and the interruption marker agentcli put beside it for the model."""
    from agentcli.core.interrupts import INTERRUPTED

    return "\n".join(t for t in blocks if not is_attachment(t) and parse_shell_context(t) is None
                     and t.strip() != INTERRUPTED).strip()


def is_attachment(text: str) -> bool:
    """A block made by `attachment` (the user saw only their `@path`, not the file's text)."""
    first = text.split("\n", 1)[0]
    return first.endswith("(attached with @):") or first.endswith("; not attached.") or (
        first.startswith("Could not attach ") and "\n" not in text)


def shell_tool_context(settings: Settings) -> ToolContext:
    """For `!cmd` before the agent is ready: the same cleaned environment and sandbox a session would have."""
    from agentcli.assembly.runtime import tool_context
    from agentcli.sandbox import for_settings

    ctx = tool_context(settings)
    ctx.sandbox = for_settings(settings)
    return ctx
