"""The first-use probe's cache (agentcli.providers.probe): what each local endpoint and model was found to do,
under `$AGENTCLI_HOME/cache/probes.json`. Apart from the probe itself, which a start reads this cache without
(issue 25, speed: the probe's HTTP parts load only when a probe or a live listing runs)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, replace
from typing import Any

from agentcli import paths
from agentcli.atomicfile import atomic_write
from agentcli.record import record


@record
class ProbeResult:
    """`tool_calling`: native | text (written as text, extractable) | none | unknown. `tools_in_prompt`: what a
    request's prompt token count showed (None: not checked yet); `llamacpp`: whether `/props` answered."""

    base_url: str
    model: str
    tool_calling: str
    context_window: int | None
    checked_at: float
    tools_in_prompt: bool | None = None
    llamacpp: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)



def _cache_file() -> Any:
    return paths.home() / "cache" / "probes.json"


def cached(base_url: str, model: str) -> ProbeResult | None:
    try:
        data = json.loads(_cache_file().read_text(encoding="utf-8"))
        return ProbeResult(**data[f"{base_url}|{model}"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remember(base_url: str, model: str, **learned: Any) -> None:
    """Add what a run learned about an endpoint to its cached probe result (ProbeResult's fields)."""
    found = cached(base_url, model) or ProbeResult(base_url, model, "unknown", None, time.time())
    store(replace(found, **learned))


def remember_tools_in_prompt(base_url: str, model: str, seen: bool) -> None:
    """What a request's prompt token count showed; a template that drops tools is recorded as "none", so it is
    said once (agentcli.assembly.toolsseen)."""
    found = cached(base_url, model)
    calling = found.tool_calling if found is not None else "unknown"
    remember(base_url, model, tool_calling=calling if seen else "none", tools_in_prompt=seen, checked_at=time.time())


def store(result: ProbeResult) -> None:
    f = _cache_file()
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    data[f"{result.base_url}|{result.model}"] = result.to_dict()
    atomic_write(f, json.dumps(data, indent=1))
