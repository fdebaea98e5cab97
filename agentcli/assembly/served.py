"""What a local OpenAI-compatible server is serving: its model's name (so sessions, `/model`, the status line and
`-p` output name it rather than "default"), and what to call the server itself (`host_label`): `-p`'s init line
and `agentcli models --base-url` both say "llamacpp" for llama.cpp, "openai-compatible" for any other server
that speaks OpenAI's wire format, and a profile's own name when one was chosen (lmstudio, vllm …)."""

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


OPENAI_COMPATIBLE = "openai-compatible"


def host_label(base_url: str, llamacpp: bool) -> str:
    """The provider name shown for an OpenAI wire-format server at `base_url` chosen by URL (not by profile)."""
    from urllib.parse import urlsplit

    if llamacpp:
        return "llamacpp"
    host = (urlsplit(base_url if "://" in base_url else "http://" + base_url).hostname or "").lower()
    return "openai" if host == "api.openai.com" else OPENAI_COMPATIBLE


async def provider_label(sel: selection.Selection) -> str | None:
    """What `-p` output names the provider when it is not the wire format's own: a profile's name, or the
    kind of server a `--base-url` points at (a local one is asked once at `/props` whether it is llama.cpp; the
    answer is kept with the first-use probe's)."""
    if sel.config.profile:
        return sel.config.profile
    if sel.config.name != "openai" or not sel.config.base_url:
        return None
    from agentcli.providers.probecache import cached

    url = str(sel.config.base_url)
    if not is_local_openai(sel):
        return host_label(url, False)
    known = cached(url, sel.model)
    if known is not None and known.llamacpp is not None:  # asked on an earlier run: no request at start-up
        return host_label(url, known.llamacpp)
    from agentcli.providers import probe

    llamacpp = await probe.llamacpp_props(url) is not None
    if known is not None:  # beside the first-use probe's result (never an entry of its own: that would stop it)
        probe.remember(url, sel.model, llamacpp=llamacpp)
    return host_label(url, llamacpp)


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


async def versioned_url(base_url: str) -> tuple[str, str]:
    """A base URL without `/v1`, which the URL alone takes for Ollama's native API: ("ollama", the URL) when
    Ollama answers there, else ("openai", the URL with `/v1`) when an OpenAI-compatible server (llama.cpp,
    vLLM, LM Studio) does. What nothing answers stays Ollama's (its error then names the URL)."""
    from agentcli.providers import probe

    kind = await probe.server_kind(base_url)
    if kind in ("llamacpp", "openai"):
        return "openai", base_url.rstrip("/") + "/v1"
    return "ollama", base_url


async def openai_url_for(sel: selection.Selection, base_url: str | None, provider: str | None,
                         model: str | None) -> str | None:
    """A run whose provider only its URL chose (no --provider, no `provider/` in the model) and whose URL
    reads as Ollama's: the `/v1` URL of the OpenAI-compatible server that really answers there, or None."""
    from agentcli.providers.profiles import infer_provider

    if sel.config.name != "ollama" or not base_url or provider or infer_provider(base_url) != "ollama":
        return None
    if model and "/" in model:
        return None
    kind, url = await versioned_url(base_url)
    return None if kind == "ollama" else url
