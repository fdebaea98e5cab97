"""Notices that other parts append to lists as they happen (the policy's, the session writer's): the REPL
asks for the new ones after each event and prints them."""

from __future__ import annotations


class NoticeTap:
    """Remembers how much of each list has been shown; holds the lists so their ids stay unique."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[list[str], int]] = {}

    def new(self, *sources: list[str] | None) -> list[str]:
        out: list[str] = []
        for src in sources:
            if src is None:
                continue
            held = self._seen.get(id(src))
            start = held[1] if held is not None and held[0] is src else 0
            if start < len(src):
                out.extend(src[start:])
            self._seen[id(src)] = (src, len(src))
        return out
