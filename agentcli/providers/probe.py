"""What models exist, and what a local endpoint can really do.

`catalog_models(provider)` lists hosted models from the catalog; `list_live(kind, base_url)` asks a running
server (Ollama `/api/tags`, OpenAI-compatible `/models`) with short timeouts; `probe(kind, base_url, model)`
is the first-use probe of a local endpoint: does native tool calling work, and what is the real context
window. Probe results are cached per endpoint and model under `$AGENTCLI_HOME/cache/probes.json`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict
from typing import Any

from agentcli.net.api import join_url, open_stream
from agentcli.net.errors import ApiIdentity, ConnectError
from agentcli.net.http import HttpClient, Timeouts
from agentcli.providers.probecache import ProbeResult as ProbeResult  # re-exported, with the cache's functions
from agentcli.providers.probecache import cached as cached
from agentcli.providers.probecache import remember as remember
from agentcli.providers.probecache import remember_tools_in_prompt as remember_tools_in_prompt
from agentcli.providers.probecache import store
from agentcli.record import record

PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Returns the current time in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
PROBE_PROMPT = "What time is it in Paris? Use the get_time tool."


@record
class ModelEntry:
    """One listed model. Prices are USD per million tokens (0 for local models); `source`: catalog | live."""

    provider: str
    name: str
    context_window: int | None = None
    input_price: float | None = None
    output_price: float | None = None
    source: str = "catalog"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def catalog_models(provider: str | None = None) -> list[ModelEntry]:
    from agentcli.providers import catalog

    return [
        ModelEntry(m.provider, m.name, m.context_window, m.input, m.output, "catalog")
        for m in catalog.models(provider)
    ]


def _client(timeout_s: float) -> HttpClient:
    return HttpClient(Timeouts(connect=timeout_s, first_byte=timeout_s, read=timeout_s))


async def _get_json(client: HttpClient, url: str, who: ApiIdentity, headers: dict[str, str] | None = None,
                    body: Any = None) -> Any:
    resp = await open_stream(client, url, headers=headers or {}, body=body, who=who,
                             method="POST" if body is not None else "GET")
    return await resp.json()


def _context_of(entry: dict[str, Any]) -> int | None:
    """The context length an OpenAI-compatible `/models` entry states (vLLM, llama.cpp, OpenRouter …)."""
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    # llama.cpp: `n_ctx` is the context the server runs with (`-c`), `n_ctx_train` only what the model allows
    for value in (entry.get("max_model_len"), entry.get("context_length"), entry.get("max_context_length"),
                  (meta or {}).get("n_ctx"), (meta or {}).get("n_ctx_train")):
        if isinstance(value, int) and value > 0:
            return value
    return None


async def list_live(kind: str, base_url: str, *, api_key: str | None = None, label: str | None = None,
                    timeout_s: float = 3.0) -> list[ModelEntry]:
    """Models a running server offers. `kind`: "ollama" (native API root) or a profile / "openai" (a /v1 base).
    Raises the mapped ProviderError when the server cannot be reached."""
    client = _client(timeout_s)
    try:
        if kind == "ollama":
            return await _ollama_models(client, base_url)
        who = ApiIdentity(label or kind, None, (api_key,))
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        data = await _get_json(client, join_url(base_url, "/models"), who, headers)
        items = data.get("data") if isinstance(data, dict) else data
        return [
            ModelEntry(kind, str(m.get("id")), _context_of(m), None, None, "live")
            for m in items or () if isinstance(m, dict) and m.get("id")
        ]
    finally:
        await client.aclose()


async def _ollama_models(client: HttpClient, root: str) -> list[ModelEntry]:
    from agentcli.providers.ollama import context_from_show

    who = ApiIdentity("Ollama")
    tags = await _get_json(client, join_url(root, "/api/tags"), who)
    names = [str(m.get("name") or m.get("model")) for m in (tags or {}).get("models") or () if isinstance(m, dict)]

    async def ctx(name: str) -> int | None:
        try:
            return context_from_show(await _get_json(client, join_url(root, "/api/show"), who, body={"model": name}))[0]
        except Exception:  # a model we cannot describe is still listed
            return None

    windows: list[int | None] = []
    for name in names:  # one at a time: the client keeps one connection, and Ollama answers fast
        windows.append(await ctx(name))
    return [ModelEntry("ollama", n, w, 0.0, 0.0, "live") for n, w in zip(names, windows, strict=True)]


# ---- first-use probe --------------------------------------------------------------------------------------


def classify_reply(message: dict[str, Any]) -> str:
    """How a model answered the probe: native tool call, a call written as text, or neither."""
    if message.get("tool_calls"):
        return "native"
    text = str(message.get("content") or "")
    if "get_time" in text and ("<tool_call>" in text or "<function=" in text or '"name"' in text):
        return "text"
    return "none"


async def probe(kind: str, base_url: str, model: str, *, api_key: str | None = None, timeout_s: float = 30.0,
                use_cache: bool = True, chat: bool = True) -> ProbeResult:
    """Ask the endpoint once (cached): native tool calling? real context window? `kind`: ollama | openai.
    With `chat=False` only metadata endpoints are read (no model call): what a run does on first use."""
    if use_cache and (hit := cached(base_url, model)) is not None:
        return hit
    client = _client(timeout_s)
    try:
        if kind == "ollama":
            result = await _probe_ollama(client, base_url, model, chat)
        else:
            result = await _probe_openai(client, base_url, model, api_key, chat)
    finally:
        await client.aclose()
    store(result)
    return result


async def _probe_ollama(client: HttpClient, root: str, model: str, chat: bool = True) -> ProbeResult:
    from agentcli.providers.ollama import context_from_show

    who = ApiIdentity("Ollama")
    show = await _get_json(client, join_url(root, "/api/show"), who, body={"model": model})
    real, modelfile = context_from_show(show)
    caps = show.get("capabilities")
    if isinstance(caps, list):
        tools = "native" if "tools" in caps else "none"
    elif not chat:
        tools = "unknown"
    else:
        body = {"model": model, "stream": False, "messages": [{"role": "user", "content": PROBE_PROMPT}],
                "tools": [PROBE_TOOL], "options": {"num_predict": 128}}
        reply = await _get_json(client, join_url(root, "/api/chat"), who, body=body)
        tools = classify_reply((reply or {}).get("message") or {})
    return ProbeResult(root, model, tools, real or modelfile, time.time())


async def _probe_openai(client: HttpClient, base: str, model: str, api_key: str | None,
                        chat: bool = True) -> ProbeResult:
    who = ApiIdentity("the server", None, (api_key,))
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    window, unreachable = None, None
    try:
        listed = await list_live("openai", base, api_key=api_key, timeout_s=5.0)
        window = next((m.context_window for m in listed if m.name == model), None)
    except ConnectError as err:  # nothing listens: nothing to learn or cache (the run says so itself)
        unreachable = err
    except Exception:  # the context window is a bonus; the tool probe below is the point
        window = None
    if unreachable is not None and not chat:
        raise unreachable
    window = window or await _llamacpp_n_ctx(client, base)  # also when /models failed: /props may answer
    if not chat:
        drops = await template_drops_tools(client, base)
        return ProbeResult(base, model, "none" if drops else "unknown", window, time.time())
    body = {"model": model, "messages": [{"role": "user", "content": PROBE_PROMPT}], "tools": [PROBE_TOOL],
            "max_tokens": 128, "stream": False}
    try:
        reply = await _get_json(client, join_url(base, "/chat/completions"), who, headers, body)
        message = ((reply or {}).get("choices") or [{}])[0].get("message") or {}
        tools = classify_reply(message)
    except Exception as err:  # a server that rejects `tools` does not support them
        tools = "none" if getattr(err, "status", None) in (400, 422, 500) else "unknown"
    return ProbeResult(base, model, tools, window, time.time())


async def template_drops_tools(client: HttpClient, base: str) -> bool | None:
    """Does a llama.cpp server's chat template leave tools out of the prompt (SmolLM2's does, so the model
    never sees them)? Its `/props` says so (`chat_template_caps`); an older server renders a prompt with a
    probe tool at `/apply-template`. None when the server does not tell (not llama.cpp)."""
    root = base[: -len("/v1")] if base.rstrip("/").endswith("/v1") else base
    who = ApiIdentity("llama.cpp")
    try:
        props = await _get_json(client, join_url(root, "/props"), who)
    except Exception:  # not llama.cpp
        return None
    caps = (props or {}).get("chat_template_caps") if isinstance(props, dict) else None
    if isinstance(caps, dict) and isinstance(caps.get("supports_tools"), bool):
        return not caps["supports_tools"]
    body = {"messages": [{"role": "user", "content": PROBE_PROMPT}], "tools": [PROBE_TOOL]}
    try:
        rendered = await _get_json(client, join_url(root, "/apply-template"), who, body=body)
    except Exception:  # an older server without the endpoint: it does not tell
        return None
    prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
    return "get_time" not in prompt if isinstance(prompt, str) else None  # PROBE_TOOL's name


async def tools_in_prompt(base: str, model: str, *, api_key: str | None = None,
                          timeout_s: float = 10.0) -> bool | None:
    """Does the server put tool definitions into the prompt? The same one-word request with and without the
    probe tool (one token of output each): a template that drops tools gives both the same prompt token count.
    None when the server reports no usage or does not answer."""
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    who = ApiIdentity("the server", None, (api_key,))
    client = _client(timeout_s)

    async def prompt_tokens(tools: list[dict[str, Any]] | None) -> int | None:
        body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1,
                                "stream": False, **({"tools": tools} if tools else {})}
        reply = await _get_json(client, join_url(base, "/chat/completions"), who, headers, body)
        n = ((reply or {}).get("usage") or {}).get("prompt_tokens") if isinstance(reply, dict) else None
        return n if isinstance(n, int) and n > 0 else None

    try:
        without, with_tool = await prompt_tokens(None), await prompt_tokens([PROBE_TOOL])
    except Exception:  # no answer is no verdict; the caller says nothing
        return None
    finally:
        await client.aclose()
    if without is None or with_tool is None:
        return None
    return with_tool > without


async def _llamacpp_n_ctx(client: HttpClient, base: str) -> int | None:
    """llama.cpp's server tells its runtime context (`-c`) at `/props`, beside `/v1`."""
    root = base[: -len("/v1")] if base.rstrip("/").endswith("/v1") else base
    try:
        props = await _get_json(client, join_url(root, "/props"), ApiIdentity("llama.cpp"))
    except Exception:  # not llama.cpp
        return None
    n = ((props or {}).get("default_generation_settings") or {}).get("n_ctx")
    return n if isinstance(n, int) else None


async def llamacpp_props(base: str, *, timeout_s: float = 2.0) -> dict[str, Any] | None:
    """llama.cpp's `/props` (beside `/v1`): runtime context, chat template, model path, … — None when the
    server is not llama.cpp or does not answer."""
    root = base[: -len("/v1")] if base.rstrip("/").endswith("/v1") else base
    client = _client(timeout_s)
    try:
        props = await _get_json(client, join_url(root.rstrip("/"), "/props"), ApiIdentity("llama.cpp"))
    except Exception:  # not llama.cpp, or not answering: the caller goes on without it
        return None
    finally:
        await client.aclose()
    return props if isinstance(props, dict) else None


async def server_kind(root: str, *, timeout_s: float = 2.0) -> str | None:
    """What the server at `root` (a URL without `/v1`) is, by what it answers: "ollama" (`/api/tags`),
    "llamacpp" (`/props`), "openai" (an OpenAI-compatible `/v1/models`), or None when it answers none of them
    (or is not there). Asked at once, on one connection each."""
    client = _client(timeout_s)
    base = root.rstrip("/")

    async def answers(path: str, key: str) -> bool:
        try:
            data = await _get_json(client, join_url(base, path), ApiIdentity("server"))
        except Exception:  # not this kind of server (404, not JSON, not there)
            return False
        return isinstance(data, dict) and key in data

    try:
        tags, props, models = await asyncio.gather(answers("/api/tags", "models"),
                                                   answers("/props", "default_generation_settings"),
                                                   answers("/v1/models", "data"))
    finally:
        await client.aclose()
    return "ollama" if tags else "llamacpp" if props else "openai" if models else None


async def gather_live(targets: list[tuple[str, str]], timeout_s: float) -> dict[str, list[ModelEntry] | str]:
    """List several local servers at once: name → models, or the reason it could not be listed."""

    async def one(kind: str, url: str) -> list[ModelEntry] | str:
        try:
            return await list_live(kind, url, timeout_s=timeout_s)
        except Exception as err:  # one server down must not hide the others
            return getattr(err, "message", str(err))

    results = await asyncio.gather(*(one(k, u) for k, u in targets))
    return {k: r for (k, _), r in zip(targets, results, strict=True)}
