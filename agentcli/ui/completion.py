"""Completion in the prompt: slash commands, their arguments (models, modes, presets), `@path` mentions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agentcli.ui.files import fuzzy_match, list_files

Names = Callable[[], Iterable[tuple[str, str]]]


class ReplCompleter(Completer):
    """`commands` yields (name, description); `arguments(name)` the values a command's argument may take
    (None when the command takes no completable argument)."""

    def __init__(
        self, cwd: Path, commands: Names, arguments: Callable[[str], Iterable[tuple[str, str]] | None]
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments
        self._files: list[str] | None = None

    def files(self) -> list[str]:
        if self._files is None:
            self._files = list_files(self.cwd)
        return self._files

    def refresh_files(self) -> None:
        self._files = None

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and "\n" not in text:
            name, space, arg = text.partition(" ")
            if not space:
                yield from self._commands(name)
                return
            values = self.arguments(name.lstrip("/")) if " " not in arg else None
            if values is not None:
                for value, meta in values:
                    if value.lower().startswith(arg.lower()):
                        yield Completion(value, -len(arg), display_meta=meta)
                return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            for path in fuzzy_match(word[1:], self.files()):
                yield Completion("@" + path, -len(word), display=path)

    def _commands(self, typed: str) -> Iterable[Completion]:
        for name, description in self.commands():
            if ("/" + name).startswith(typed):
                yield Completion("/" + name, -len(typed), display_meta=description)
