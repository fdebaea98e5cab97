"""Test doubles: the fake LLM server (`tests.fakes.server.FakeLLM`) and its scripts (`tests.fakes.script`)."""

from __future__ import annotations

from typing import Any

from tests.fakes.script import Fault, Reply, ToolCall, Usage

__all__ = ["FakeLLM", "Fault", "RecordedRequest", "Reply", "ToolCall", "Usage"]


def __getattr__(name: str) -> Any:
    # Lazy, so `python -m tests.fakes.server` does not import the server module twice.
    if name in ("FakeLLM", "RecordedRequest"):
        from tests.fakes import server

        return getattr(server, name)
    raise AttributeError(name)
