"""Completion in the prompt: slash commands, their arguments (models, modes, presets), `@path` mentions."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agentcli.ui.files import fuzzy_match, list_files

Names = Callable[[], Iterable[tuple[str, str]]]


class ReplCompleter(Completer):
    """`commands` yields (name, description); `arguments` maps a command to a source of its argument values."""

    def __init__(self, cwd: Path, commands: Names, arguments: dict[str, Names]) -> None:
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
            source = self.arguments.get(name.lstrip("/"))
            if source is not None and " " not in arg:
                for value, meta in source():
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
