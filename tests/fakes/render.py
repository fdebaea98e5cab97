"""Renderers turn a `Reply` into one provider's wire format. They are registered by URL path suffix, so a
new wire format (gemini, ollama, responses) plugs into the fake server with one `register()` call."""

from __future__ import annotations

import itertools
import json
from typing import Any, Protocol

from tests.fakes.script import Fault, Reply


def dumps(obj: Any) -> str:
    """Compact JSON, as the real APIs send it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Ids:
    """Deterministic ids (`toolu_fake0001`, `call_fake0002` …) so tests can assert on them."""

    def __init__(self) -> None:
        self._n = itertools.count(1)

    def next(self, prefix: str) -> str:
        return f"{prefix}fake{next(self._n):04d}"


class Renderer(Protocol):
    """One wire format. `stream` returns the body as a list of frames (one write each)."""

    content_type: str

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]: ...

    def stream_error(self, fault: Fault) -> bytes: ...

    def error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]: ...

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]: ...

    def validate(self, request: dict[str, Any]) -> list[str]: ...

    def is_stream(self, request: dict[str, Any], path: str) -> bool: ...


_RENDERERS: dict[str, Renderer] = {}


def register(path_suffix: str, renderer: Renderer) -> None:
    _RENDERERS[path_suffix] = renderer


def renderer_for(path: str) -> Renderer | None:
    """The renderer whose suffix is the longest match for `path` (query string ignored)."""
    path = path.split("?", 1)[0]
    best = max((s for s in _RENDERERS if path.endswith(s)), key=len, default=None)
    return _RENDERERS[best] if best is not None else None


def load_builtin() -> None:
    """Register the renderers that ship with the fake (idempotent). Optional ones load if present."""
    import importlib

    for mod in ("anthropic", "openai_chat", "gemini", "ollama", "responses", "bedrock"):
        try:
            importlib.import_module(f"tests.fakes.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"tests.fakes.{mod}":
                raise
