"""Pytest fixtures for the fake LLM. Use from a conftest: `from tests.fakes.fixtures import fake_llm`
(or `pytest_plugins = ["tests.fakes.fixtures"]` in the top-level conftest)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.server import FakeLLM


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A started, empty fake; `fake_llm.push(Reply(...))` scripts it."""
    with FakeLLM() as fake:
        yield fake
