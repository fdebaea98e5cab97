"""Images in: Read of a PNG reaches each provider as an image in its own wire format (checked against the fake's
log and parsed by the official SDK's types); a text-only model gets a clear refusal; sessions keep a reference."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import agentcli, git_repo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM


def png(path: Path, size: tuple[int, int] = (40, 30)) -> Path:
    from PIL import Image

    Image.new("RGB", size, (200, 30, 30)).save(path, "PNG")
    return path


def env_for(fake: FakeLLM, model: str) -> dict[str, str]:
    provider = model.split("/")[0]
    return {
        "anthropic": {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-0000000000"},
        "openai": {"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-0000000000"},
        "openai-responses": {"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-0000000000"},
        "google": {"GOOGLE_GEMINI_BASE_URL": fake.url, "GEMINI_API_KEY": "gemini-test-000000"},
    }[provider]


def image_parts(model: str, body: dict[str, Any]) -> list[Any]:
    """The image parts of the last request, validated with the official SDK's request types where it has them."""
    if model.startswith("anthropic/"):
        blocks = [b for m in body["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])
                  if b.get("type") == "image"]
        from anthropic.types import ImageBlockParam  # a TypedDict: check the keys it requires

        assert all(set(ImageBlockParam.__required_keys__) <= set(b) for b in blocks)
        return blocks
    if model.startswith("openai/"):
        return [p for m in body["messages"] if isinstance(m.get("content"), list) for p in m["content"]
                if p.get("type") == "image_url"]
    if model.startswith("openai-responses/"):
        return [p for m in body["input"] if isinstance(m.get("content"), list) for p in m["content"]
                if p.get("type") == "input_image"]
    from google.genai import types

    parts = [types.Part.model_validate(p) for c in body["contents"] for p in c["parts"]]
    return [p for p in parts if p.inline_data is not None]


@pytest.mark.parametrize("model", ["anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "openai-responses/gpt-5",
                                   "google/gemini-2.5-pro"])
def test_read_of_a_png_sends_an_image(tmp_path: Path, fake_llm: FakeLLM, model: str) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    png(proj / "shot.png")
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "shot.png"})]), Reply(text="a red square"))
    run = agentcli(["-p", "what is in shot.png?", "--model", model, "--output-format", "json"], proj,
                   env_for(fake_llm, model))
    assert run.status == 0, run.stderr
    assert fake_llm.violations == []
    parts = image_parts(model, fake_llm.requests[-1].body)
    assert len(parts) == 1, fake_llm.requests[-1].body
    sid = run.json()["session_id"]
    stored = next(Path(os.environ["AGENTCLI_HOME"]).rglob(f"{sid}.jsonl")).read_text()
    assert '"type":"file"' in stored and "shot.png" in stored and "iVBOR" not in stored  # by reference


def test_a_text_only_model_is_refused_clearly(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    png(proj / "shot.png")
    home = Path(os.environ["AGENTCLI_HOME"])
    (home / "config.toml").write_text(f'[providers.llamacpp]\nbase_url = "{fake_llm.openai_url}"\n')
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "shot.png"})]), Reply(text="ok"))
    run = agentcli(["-p", "look", "--model", "llamacpp/smollm"], proj)
    assert run.status == 0, run.stderr
    seen = json.dumps(fake_llm.requests[-1].body["messages"])
    assert "does not accept images" in seen and "image_url" not in seen


def test_at_mention_in_p_and_resume_reads_the_file_again(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from PIL import Image

    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    png(proj / "big.png", (4000, 3000))
    model = "anthropic/claude-sonnet-4-5"
    fake_llm.push(Reply(text="seen"), Reply(text="again"))
    first = agentcli(["-p", "what is wrong in @big.png", "--model", model], proj, env_for(fake_llm, model))
    assert first.status == 0, first.stderr
    (block,) = image_parts(model, fake_llm.requests[0].body)
    import base64

    scaled = Image.open(io.BytesIO(base64.b64decode(block["source"]["data"])))
    assert max(scaled.size) == 1568  # scaled to what every provider takes
    again = agentcli(["-c", "-p", "and now?", "--model", model], proj, env_for(fake_llm, model))
    assert again.status == 0, again.stderr
    assert len(image_parts(model, fake_llm.requests[1].body)) == 1
    (proj / "big.png").unlink()
    fake_llm.push(Reply(text="gone"))
    gone = agentcli(["-c", "-p", "still there?", "--model", model], proj, env_for(fake_llm, model))
    assert gone.status == 0, gone.stderr
    assert "image not available" in json.dumps(fake_llm.requests[2].body["messages"])
