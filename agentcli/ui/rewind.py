"""`/rewind`: list this session's prompts; `/rewind N [chat|code|both]` shows what going back to before prompt N
would do — the per-file diff and a warning about files changed outside the agent — and applies it only after
the user says yes. The rewound prompt is put back in the input."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from rich.text import Text

from agentcli.errors import AgentCliError, UsageError
from agentcli.visible import inert

if TYPE_CHECKING:
    from agentcli.session.rewind import RewindPlan
    from agentcli.ui.host import ReplHost

FILE_LINES = 40
TOTAL_LINES = 200
WHAT = {"": "the conversation and the files", "both": "the conversation and the files", "chat": "the conversation",
        "code": "the files"}


async def rewind(repl: ReplHost, args: str) -> None:
    agent, built = repl.agent, repl.built
    if agent is None or built is None or built.session.writer is None:
        repl.renderer.notice("Nothing to rewind (no stored session yet).")
        return
    from agentcli.session import layout
    from agentcli.session.reader import load, message_records
    from agentcli.session.rewind import apply_rewind, plan_rewind

    writer = built.session.writer
    writer.flush()  # records may wait behind a turn-end checkpoint
    loaded = load(layout.sessions_dir(repl.root), agent.session_id)
    from agentcli.llm.messages import TextBlock
    from agentcli.ui.attach import typed_text

    typed = ((rec, typed_text([b.text for b in msg.content if isinstance(b, TextBlock)]))
             for rec, msg in message_records(loaded.chain) if msg.role == "user")
    prompts = [(rec, text) for rec, text in typed if text]  # what the person typed, as they typed it
    word, _, what = args.partition(" ")
    what = what.strip()
    if not word:
        lines = [f"  {i + 1:>2}  {inert(text.splitlines()[0][:70])}" for i, (_, text) in enumerate(prompts)]
        repl.renderer.notice("Prompts:\n" + "\n".join(lines) + "\nRewind with /rewind N [chat|code|both]")
        return
    if not word.isdigit() or not 1 <= int(word) <= len(prompts) or what not in WHAT:
        repl.error(UsageError(f"usage: /rewind N [chat|code|both], N from 1 to {len(prompts)}"))
        return
    rec, text = prompts[int(word) - 1]
    parent = rec.get("parent_id")
    if not parent:
        repl.error(UsageError("cannot rewind before the first record; use /clear for a new session"))
        return
    files, conversation = what != "chat", what != "code"
    try:
        plan = plan_rewind(loaded, str(parent), writer.shadow if files else None)
    except AgentCliError as err:
        repl.error(err)
        return
    show_plan(repl, plan, files=files, heading=f"Rewind to before prompt {word}: {inert(text.splitlines()[0][:60])}")
    if not await confirm(f"Rewind {WHAT[what]} to before prompt {word}? [y/N] "):
        repl.renderer.notice("Rewind cancelled: nothing changed.")
        return
    try:
        agent.rewind(apply_rewind(writer, loaded, plan, files=files, conversation=conversation))
    except AgentCliError as err:
        repl.error(err)
        return
    changed = len(plan.changes) if files else 0
    repl.renderer.notice(f"Rewound {WHAT[what]}" + (f" ({changed} file{'s' * (changed != 1)} restored)"
                                                      if changed else ""))
    if conversation:
        repl.put_back(text)


def show_plan(repl: ReplHost, plan: RewindPlan, *, files: bool, heading: str | None = None) -> None:
    """The summary (describe; `heading` in place of its line of ids), warnings in yellow, then the diff per
    file."""
    from agentcli.session.rewind import describe

    console = repl.console
    repl.renderer.flush()
    console.print()
    if not files:
        console.print(Text(f"{heading or f'rewind {plan.session_id} to record {plan.target_id}'}: files are left "
                           "as they are"))
        return
    warning = False
    for line in describe(plan, heading).splitlines():
        warning = warning or line.lstrip().startswith("warning:")
        console.print(Text(line, style="bold yellow" if warning else ""), highlight=False)
    for text in patch_lines(plan.patch, console.width):
        console.print(text, highlight=False)


def patch_lines(patch: str, width: int) -> list[Text]:
    """A git patch as coloured lines, grouped per file under a bold file name; long diffs are cut."""
    out: list[Text] = []
    shown = 0
    in_file = 0
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            name = line.split(" b/", 1)[-1]
            out.append(Text(f"  {name}", style="bold"))
            in_file = 0
            continue
        if line.startswith(("index ", "--- ", "+++ ", "new file mode", "deleted file mode", "old mode", "new mode")):
            continue
        in_file += 1
        shown += 1
        if in_file == FILE_LINES + 1 or shown == TOTAL_LINES + 1:
            out.append(Text("    … (diff cut here)", style="dim"))
        if in_file > FILE_LINES or shown > TOTAL_LINES:
            continue
        style = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1], "dim")
        clipped = line if len(line) <= width - 5 else line[: max(1, width - 6)] + "…"
        out.append(Text(f"    {clipped}", style=style))
    return out


async def confirm(question: str) -> bool:
    """A y/N question at the prompt; Ctrl-C / Ctrl-D mean no."""
    from prompt_toolkit import PromptSession

    answer = ""
    with contextlib.suppress(EOFError, KeyboardInterrupt):
        answer = await PromptSession[str]().prompt_async(question)
    return answer.strip().lower() in ("y", "yes")
