"""The session picker for `--resume` without an id and `/resume`: each session's title, age, turns, model,
git branch and first prompt; typing filters the list (every word must match), ↑/↓ move, Enter picks,
Esc or Ctrl-C cancels. Drawn inline under the cursor and erased when done: the scrollback stays clean."""

from __future__ import annotations

import time
from collections.abc import Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import BufferControl, FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from agentcli.session.index import SessionSummary

SHOWN = 8
STYLE = Style.from_dict({
    "filter": "bold",
    "selected": "bold",
    "pointer": "ansicyan bold",
    "meta": "#888888",
    "prompt-line": "#888888 italic",
    "hint": "#666666",
})


def age(seconds_ago: float) -> str:
    """`just now`, `5m ago`, `3h ago`, `2d ago`, `7w ago`."""
    s = max(0.0, seconds_ago)
    for limit, unit, label in ((60, 1, ""), (3600, 60, "m"), (86400, 3600, "h"), (14 * 86400, 86400, "d")):
        if s < limit:
            return "just now" if not label else f"{int(s // unit)}{label} ago"
    return f"{int(s // (7 * 86400))}w ago"


def matches(summary: SessionSummary, query: str) -> bool:
    """Every word of `query` appears (any case) in the title, name, first prompt, model, branch or id."""
    hay = " ".join(
        (summary.title, summary.name or "", summary.first_prompt, summary.model, summary.git_branch or "", summary.id)
    ).lower()
    return all(word in hay for word in query.lower().split())


def describe(summary: SessionSummary, now: float) -> tuple[str, str]:
    """The two lines of a row: title with its facts, then the id and first prompt."""
    turns = f"{summary.turns} turn{'' if summary.turns == 1 else 's'}"
    facts = [age(now - summary.updated), turns, summary.model or "?"]
    if summary.git_branch:
        facts.append(f"⎇ {summary.git_branch}")
    first = " ".join(summary.first_prompt.split()) or "(no prompt yet)"
    return f"{summary.title}  · {' · '.join(facts)}", f"{summary.id[:8]}  {first}"


class SessionPicker:
    """One run of the picker over `sessions` (newest first); `run()` returns the chosen id or None."""

    def __init__(
        self,
        sessions: Sequence[SessionSummary],
        *,
        now: float | None = None,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.sessions = list(sessions)
        self.now = time.time() if now is None else now
        self.selected = 0
        self.filter = Buffer(multiline=False, on_text_changed=lambda _: self._reset())
        self.app: Application[str | None] = Application(
            layout=Layout(HSplit([
                Window(FormattedTextControl(self._title), height=1),
                Window(BufferControl(self.filter, input_processors=[BeforeInput("filter› ", style="class:filter")]),
                       height=1),
                Window(FormattedTextControl(self._rows), height=2 * SHOWN),
                Window(FormattedTextControl(self._hint), height=1),
            ]), focused_element=self.filter),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=False,
            erase_when_done=True,
            input=input,
            output=output,
        )

    @property
    def visible(self) -> list[SessionSummary]:
        query = self.filter.text
        return [s for s in self.sessions if matches(s, query)] if query.strip() else self.sessions

    async def run(self) -> str | None:
        return await self.app.run_async()

    def _reset(self) -> None:
        self.selected = 0

    def _move(self, step: int) -> None:
        n = len(self.visible)
        if n:
            self.selected = max(0, min(n - 1, self.selected + step))

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("up")
        @kb.add("c-p")
        def _up(event: KeyPressEvent) -> None:
            self._move(-1)

        @kb.add("down")
        @kb.add("c-n")
        def _down(event: KeyPressEvent) -> None:
            self._move(1)

        @kb.add("pageup")
        def _page_up(event: KeyPressEvent) -> None:
            self._move(-SHOWN)

        @kb.add("pagedown")
        def _page_down(event: KeyPressEvent) -> None:
            self._move(SHOWN)

        @kb.add("enter")
        def _pick(event: KeyPressEvent) -> None:
            shown = self.visible
            if shown:
                event.app.exit(result=shown[min(self.selected, len(shown) - 1)].id)

        @kb.add("escape", eager=True)
        @kb.add("c-c")
        @kb.add("c-d")
        def _cancel(event: KeyPressEvent) -> None:
            event.app.exit(result=None)

        return kb

    def _title(self) -> StyleAndTextTuples:
        return [("bold", "Resume a session")]

    def _rows(self) -> StyleAndTextTuples:
        shown = self.visible
        if not shown:
            return [("class:meta", "  no session matches")]
        first = max(0, min(self.selected - SHOWN // 2, len(shown) - SHOWN))
        out: StyleAndTextTuples = []
        for i, summary in enumerate(shown[first : first + SHOWN], first):
            top, bottom = describe(summary, self.now)
            chosen = i == self.selected
            out.append(("class:pointer", "❯ " if chosen else "  "))
            out.append(("class:selected" if chosen else "", top + "\n"))
            out.append(("class:prompt-line", "    " + bottom + "\n"))
        return out

    def _hint(self) -> StyleAndTextTuples:
        count = f"{len(self.visible)} of {len(self.sessions)}"
        return [("class:hint", f"↑↓ move · enter resume · esc cancel · type to filter ({count})")]
