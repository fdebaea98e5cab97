"""First run: no provider configured at all. Say how to configure one, and which local servers are listening."""

from __future__ import annotations

import asyncio
import os

from agentcli import paths

LOCAL_SERVERS = (
    ("Ollama", "127.0.0.1", 11434, "--provider ollama   (or OLLAMA_HOST=http://localhost:11434)"),
    ("llama.cpp server", "127.0.0.1", 8080, "OPENAI_BASE_URL=http://localhost:8080/v1"),
    ("LM Studio", "127.0.0.1", 1234, "OPENAI_BASE_URL=http://localhost:1234/v1"),
)

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


async def probe_local(timeout: float = 0.3) -> list[tuple[str, int, str]]:
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
        lines.append("No local model server found on ports 11434 (Ollama), 8080 (llama.cpp), 1234 (LM Studio).")
    return "\n".join(lines)


async def require_configured(model: str | None, provider: str | None, base_url: str | None) -> None:
    """Nothing configured at all: a ConfigError (exit 2) saying how to configure a provider and which local
    servers are listening. Ports are probed only in that case."""
    if anything_configured(model, provider, base_url):
        return
    from agentcli.errors import ConfigError

    raise ConfigError(first_run_message(await probe_local()), code="no_provider")
