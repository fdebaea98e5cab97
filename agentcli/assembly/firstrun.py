"""First run: no provider configured at all. Say how to configure one, and which local servers are listening."""

from __future__ import annotations

import asyncio
import os

from agentcli import paths
from agentcli.record import record

LOCAL_SERVERS = (
    ("Ollama", "127.0.0.1", 11434, "--provider ollama   (or OLLAMA_HOST=http://localhost:11434)"),
    ("llama.cpp server", "127.0.0.1", 8080, "--base-url http://localhost:8080/v1"),
    ("LM Studio", "127.0.0.1", 1234, "--provider lmstudio   (or --base-url http://localhost:1234/v1)"),
    ("vLLM", "127.0.0.1", 8000, "--provider vllm   (or --base-url http://localhost:8000/v1)"),
)
# The profile a server found on its usual port is saved as (agentcli.providers.profiles), by what it answers.
PROFILE_BY_PORT = {11434: "ollama", 8080: "llamacpp", 1234: "lmstudio", 8000: "vllm"}

CONFIG_ENV_VARS = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OLLAMA_HOST", "AGENTCLI_HOST",
    "AGENTCLI_MODEL", "AGENTCLI_PROVIDER",
)


def anything_configured(model: str | None, provider: str | None, base_url: str | None) -> bool:
    return bool(model or provider or base_url or any(os.environ.get(v) for v in CONFIG_ENV_VARS))


async def _listening(host: str, port: int, timeout: float) -> bool:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError):
        return False
    writer.close()
    return True


async def probe_local(timeout: float = 0.1) -> list[tuple[str, int, str]]:
    """Local model servers accepting connections on their usual ports."""
    found = await asyncio.gather(*(_listening(h, p, timeout) for _, h, p, _ in LOCAL_SERVERS))
    return [(name, port, hint) for (name, _, port, hint), ok in zip(LOCAL_SERVERS, found, strict=True) if ok]


def first_run_message(found: list[tuple[str, int, str]]) -> str:
    lines = [
        "No model provider is configured. Set one up in any of these ways:",
        "  export ANTHROPIC_API_KEY=…            then: agentcli --model anthropic/claude-sonnet-4-5",
        "  export OPENAI_API_KEY=…               then: agentcli --model openai/gpt-5",
        "  export GEMINI_API_KEY=…               then: agentcli --model google/gemini-2.5-pro",
        "  export OPENAI_BASE_URL=http://localhost:8080/v1   (llama.cpp, vLLM, LM Studio, any OpenAI-compatible host)",
        f"  or write {paths.user_config_file()}:  model = \"anthropic/claude-sonnet-4-5\"",
    ]
    if found:
        lines.append("Local model servers found listening:")
        lines.extend(f"  {name} on port {port}: {hint}" for name, port, hint in found)
    else:
        ports = ", ".join(f"{port} ({name.removesuffix(' server')})" for name, _, port, _ in LOCAL_SERVERS)
        lines.append(f"No local model server found on ports {ports}.")
    return "\n".join(lines)


async def require_configured(model: str | None, provider: str | None, base_url: str | None) -> None:
    """Nothing configured at all: a ConfigError (exit 2) saying how to configure a provider and which local
    servers are listening. Ports are probed only in that case."""
    if anything_configured(model, provider, base_url):
        return
    from agentcli.errors import ConfigError

    raise ConfigError(first_run_message(await probe_local()), code="no_provider")


@record
class LocalServer:
    """A model server found on this machine: what to save as the provider, and what it serves."""

    label: str
    provider: str  # "ollama" or an OpenAI-compatible profile (llamacpp, lmstudio, vllm)
    base_url: str
    model: str | None


async def find_local() -> list[LocalServer]:
    """Local model servers on their usual ports, each named by what it answers (`/api/tags`, `/props`,
    `/v1/models`): the connection probe takes ≤ 0.1 s in all; only a port that accepts is asked more."""
    from agentcli.providers import probe

    async def named(label: str, port: int) -> LocalServer | None:
        root = f"http://127.0.0.1:{port}"
        kind = await probe.server_kind(root, timeout_s=2.0)
        if kind is None:
            return None
        if kind == "ollama":
            models = await _listed("ollama", root)
            return LocalServer("Ollama", "ollama", root, models[0] if models else None)
        profile = "llamacpp" if kind == "llamacpp" else PROFILE_BY_PORT.get(port, "llamacpp")
        models = await _listed(profile, root + "/v1")
        shown = "llama.cpp server" if kind == "llamacpp" else label
        return LocalServer(shown, profile, root + "/v1", models[0] if models else None)

    found = await probe_local()
    answers = await asyncio.gather(*(named(label, port) for label, port, _ in found))
    return [a for a in answers if a is not None]


async def _listed(kind: str, url: str) -> list[str]:
    from agentcli.assembly.served import display_name
    from agentcli.providers import probe

    try:
        return [display_name(e.name) for e in await probe.list_live(kind, url, timeout_s=2.0)]
    except Exception:  # a server that lists nothing may still answer chats
        return []
