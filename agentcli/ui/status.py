"""The status line under the prompt: model, permission mode, context used, session cost, git branch."""

from __future__ import annotations

from typing import Protocol

from agentcli.modes import PermissionMode
from agentcli.record import record

MODE_LABELS: dict[str, str] = {
    "default": "default mode",
    "acceptEdits": "⏵⏵ accept edits",
    "plan": "⏸ plan mode",
    "bypassPermissions": "⚠ bypass permissions",
    "auto": "⏵ auto (sandboxed)",
}
MODE_STYLES: dict[str, str] = {"default": "", "acceptEdits": "magenta", "plan": "cyan", "bypassPermissions": "red",
                               "auto": "green"}
CYCLE: tuple[PermissionMode, ...] = ("default", "acceptEdits", "auto", "plan")


def next_mode(mode: str, allow_bypass: bool = False) -> PermissionMode:
    """Shift-Tab: default → acceptEdits → auto → plan (→ bypassPermissions when the session started with it) → …"""
    cycle: tuple[PermissionMode, ...] = (*CYCLE, "bypassPermissions") if allow_bypass else CYCLE
    return cycle[(cycle.index(mode) + 1) % len(cycle)] if mode in cycle else cycle[0]


class SessionView(Protocol):
    """Where the status line reads the mode and model at each draw: the REPL, which answers with its agent's
    read-only views (the agent's `SessionState` and options, the one owner), or, before an agent exists, with
    the person's choice that agent will adopt. The status line keeps no copy of either."""

    @property
    def mode(self) -> str: ...

    @property
    def model(self) -> str: ...


@record(frozen=False)
class Status:
    session: SessionView
    context_tokens: int = 0
    context_window: int | None = None
    cost_usd: float = 0.0
    branch: str | None = None

    @property
    def context_percent(self) -> int | None:
        if not self.context_window:
            return None
        return min(100, round(100 * self.context_tokens / self.context_window))

    @property
    def mode(self) -> str:
        return self.session.mode

    @property
    def model(self) -> str:
        return self.session.model

    def fragments(self, width: int) -> list[tuple[str, str]]:
        """prompt_toolkit (style, text) pairs; the least important parts go first when the line is narrow."""
        mode = self.mode
        parts: list[tuple[str, str]] = [
            (f"class:mode.{mode.lower()}", MODE_LABELS.get(mode, mode)),
            ("class:status", self.model),
        ]
        pct = self.context_percent
        parts.append(("class:status", f"ctx {pct}%" if pct is not None else f"ctx {_k(self.context_tokens)}"))
        parts.append(("class:status", f"${self.cost_usd:.2f}"))
        if self.branch:
            parts.append(("class:status", f"⎇ {self.branch}"))
        hint = ("class:status.hint", "shift+tab: mode")
        while len(parts) > 2 and _length(parts) + len(hint[1]) + 3 > width:
            parts.pop()
        out: list[tuple[str, str]] = [("", " ")]
        for i, part in enumerate(parts):
            if i:
                out.append(("class:status.sep", " · "))
            out.append(part)
        if _length(parts) + len(hint[1]) + 6 <= width:
            out.extend([("class:status.sep", " · "), hint])
        return out

    def plain(self) -> str:
        return "".join(text for _, text in self.fragments(200))


def _length(parts: list[tuple[str, str]]) -> int:
    return sum(len(t) for _, t in parts) + 3 * (len(parts) - 1) + 1


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)
