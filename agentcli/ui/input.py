"""The prompt: prompt_toolkit with Enter to send, Alt-Enter / Esc-Enter / Ctrl-J / a trailing `\\` for a new
line, large pastes collapsed to a placeholder, persistent history (Ctrl-R), completion and Shift-Tab."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from agentcli.ui.attach import is_large_paste, paste_placeholder

STYLE = {
    "prompt": "bold",
    "bottom-toolbar": "noreverse",
    "status": "#888888",
    "status.sep": "#555555",
    "status.hint": "#555555",
    "mode.acceptedits": "ansimagenta",
    "mode.plan": "ansicyan",
    "mode.bypasspermissions": "ansired",
    "mode.default": "#888888",
}


class CtrlCOnEmpty(Exception):
    """Ctrl-C was pressed on an empty prompt (twice in a row exits)."""


def accept_completion(buf: Buffer, completion: Completion) -> None:
    """Insert `completion` and close the popup. `Buffer.apply_completion` inserts with the text-insert event,
    which (completing while typing) asks the completer again and reopens the popup on the accepted text."""
    buf.cancel_completion()
    buf.delete_before_cursor(-completion.start_position)
    buf.insert_text(completion.text, fire_event=False)


def key_bindings(on_back_tab: Callable[[], None], pastes: dict[int, str]) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("enter")
    def _send(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            accept_completion(buf, state.current_completion)
            return
        if buf.document.text_before_cursor.endswith("\\") and not buf.document.text_after_cursor.strip():
            buf.delete_before_cursor(1)
            buf.insert_text("\n")
            return
        buf.validate_and_handle()

    @kb.add("tab")
    def _complete(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state is None or not state.completions:
            buf.start_completion(insert_common_part=True)
            return
        accept_completion(buf, state.current_completion or state.completions[0])

    @kb.add("escape", "enter")
    @kb.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("s-tab")
    def _mode(event: KeyPressEvent) -> None:
        on_back_tab()
        event.app.invalidate()

    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if buf.text:
            buf.reset()
        else:
            event.app.exit(exception=CtrlCOnEmpty())

    @kb.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        data = event.data.replace("\r\n", "\n").replace("\r", "\n")
        if is_large_paste(data):
            n = len(pastes) + 1
            pastes[n] = data
            data = paste_placeholder(n, data)
        event.current_buffer.insert_text(data)

    return kb


def make_session(
    history_file: Path,
    completer: Completer,
    toolbar: Callable[[], StyleAndTextTuples],
    on_back_tab: Callable[[], None],
    pastes: dict[int, str],
) -> PromptSession[str]:
    history_file.parent.mkdir(parents=True, exist_ok=True)
    no_color = bool(os.environ.get("NO_COLOR"))
    return PromptSession(
        message=[("class:prompt", "› ")],
        multiline=True,
        prompt_continuation=lambda width, line_number, wrap_count: "  ",
        history=FileHistory(str(history_file)),
        completer=completer,
        complete_while_typing=True,
        complete_in_thread=True,
        key_bindings=key_bindings(on_back_tab, pastes),
        bottom_toolbar=toolbar,
        style=Style.from_dict(STYLE),
        color_depth=ColorDepth.DEPTH_1_BIT if no_color else None,
        enable_history_search=False,
        mouse_support=False,
        erase_when_done=False,
        reserve_space_for_menu=6,
    )
