"""What a local OpenAI-compatible server is serving: its model's name (so sessions, `/model`, the status line and
`-p` output name it rather than "default") and whether its chat template keeps tools."""

from __future__ import annotations

import dataclasses
import os

from agentcli.assembly import selection
from agentcli.net.http import is_loopback_url


def is_local_openai(sel: selection.Selection) -> bool:
    return sel.config.name == "openai" and bool(sel.config.base_url) and is_loopback_url(str(sel.config.base_url))


async def served_model(base_url: str, api_key: str | None = None) -> str | None:
    """The model a local server serves: the first of `/v1/models`, else llama.cpp's `/props` model path."""
    from agentcli.providers import probe

    try:
        listed = await probe.list_live("openai", base_url, api_key=api_key, timeout_s=2.0)
    except Exception:  # not listing models is not an error: the server may still answer chats
        listed = []
    if listed:
        return display_name(listed[0].name)
    props = await probe.llamacpp_props(base_url)
    path = (props or {}).get("model_path")
    return display_name(path) if isinstance(path, str) and path else None


def display_name(model_id: str) -> str:
    """llama.cpp names a model by its file path; the file name says the same (llama.cpp accepts any name)."""
    if model_id.lower().endswith(".gguf"):
        return os.path.basename(model_id)
    return model_id


async def name_served_model(sel: selection.Selection, named: bool) -> selection.Selection:
    """`sel` with the served model's name when the user named none and the server is local."""
    if named or sel.model != selection.LOCAL_MODEL or not is_local_openai(sel):
        return sel
    served = await served_model(str(sel.config.base_url), sel.config.api_key)
    return dataclasses.replace(sel, model=served) if served else sel
