"""`agentcli models [--provider P] [--json]`: hosted models from the catalog, local ones from a live probe.

Without `--provider`: every catalog model, then whatever the usual local servers (Ollama, llama.cpp,
LM Studio, vLLM) offer right now; a server that is not running is noted, not an error.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from agentcli.commands import JsonFlag, entry, new_app
from agentcli.errors import AgentCliError, UsageError

if TYPE_CHECKING:
    from agentcli.providers.probe import ModelEntry

HOSTED = ("anthropic", "openai", "google")
LOCAL_PROFILES = ("llamacpp", "lmstudio", "vllm")

app = new_app("List the models agentcli can use.")


@dataclass(frozen=True, slots=True)
class Query:
    provider: str | None
    base_url: str | None
    timeout: float
    probe: str | None


@app.command(help="List the models agentcli can use: the catalog for hosted providers, a live probe for local "
                  "servers.")
def models(
    provider: Annotated[str | None, typer.Option(metavar="PROVIDER", show_default=False,
                                                 help="anthropic, openai, google, ollama, or a profile (llamacpp, "
                                                      "groq …)")] = None,
    base_url: Annotated[str | None, typer.Option(metavar="URL", show_default=False,
                                                 help="ask this server instead of the provider's usual address")
                        ] = None,
    timeout: Annotated[float, typer.Option(metavar="SECONDS", help="seconds to wait for a local server")] = 2.0,
    probe: Annotated[str | None, typer.Option(metavar="MODEL", show_default=False,
                                              help="also probe MODEL: native tool calling and real context")] = None,
    as_json: JsonFlag = False,
) -> int:
    try:
        entries, notes, probed = asyncio.run(_collect(Query(provider, base_url, timeout, probe)))
    except AgentCliError as err:
        sys.stderr.write(f"agentcli models: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    try:
        if as_json:
            out = {"models": [e.to_dict() for e in entries], "notes": notes}
            if probed is not None:
                out["probe"] = probed
            sys.stdout.write(json.dumps(out, indent=2) + "\n")
        else:
            sys.stdout.write(render_table(entries))
            for note in notes:
                sys.stderr.write(f"note: {note}\n")
            if probed is not None:
                sys.stdout.write(f"probe {probed['model']}: tool calling {probed['tool_calling']}, "
                                 f"context {probed['context_window'] or 'unknown'}\n")
    except BrokenPipeError:
        return 0
    return 0


main = entry(app, "models")


async def _collect(ns: Query) -> tuple[list[ModelEntry], list[str], dict[str, object] | None]:
    from agentcli.providers import probe
    from agentcli.providers.factory import canonical
    from agentcli.providers.profiles import get_profile

    name = canonical(ns.provider) if ns.provider else None
    notes: list[str] = []
    if name is None and ns.base_url:  # the server at that URL, in the wire format its URL suggests
        from agentcli.providers.profiles import infer_provider

        name = infer_provider(ns.base_url)
        if name == "ollama":  # no /v1: what answers there decides (llama.cpp prints its URL without /v1)
            from agentcli.assembly.served import versioned_url

            kind, url = await versioned_url(ns.base_url)
            if kind != "ollama":
                import dataclasses

                name, ns = "openai", dataclasses.replace(ns, base_url=url)
    if name is None:
        entries = probe.catalog_models()
        found = await probe.gather_live(_local_targets(), ns.timeout)
        for server, result in found.items():
            if isinstance(result, str):
                notes.append(f"{server}: not reachable ({result})")
            else:
                entries += [_named(e) for e in result]
        return entries, notes, None
    if name in HOSTED and not ns.base_url:
        entries = probe.catalog_models(name)
        if name == "openai":
            entries += probe.catalog_models("openai-responses")
        return entries, notes, None
    kind, url, key = _endpoint(name, ns.base_url, get_profile(name))
    entries = await probe.list_live(kind, url, api_key=key, timeout_s=max(ns.timeout, 5.0 if key else 0))
    if kind == "openai":
        entries = await _name_local(entries, url)
    probed = None
    if ns.probe:
        probed = (await probe.probe("ollama" if kind == "ollama" else "openai", url, ns.probe, api_key=key,
                                    use_cache=False)).to_dict()  # --probe asks the server, every time
    return entries, notes, probed


def _endpoint(name: str, base_url: str | None, profile: object) -> tuple[str, str, str | None]:
    from agentcli.providers.ollama import ollama_base_url
    from agentcli.providers.profiles import Profile

    if name == "ollama":
        return "ollama", ollama_base_url(base_url), None
    if isinstance(profile, Profile):
        key = profile.api_key()
        if key is None and profile.key_required:
            raise UsageError(f"{profile.label} lists its models only with a key",
                             hint=f"set {profile.api_key_env}, or see its default: {profile.default_model}")
        return name, base_url or profile.resolve_base_url(), key
    if name in ("openai", "openai-responses") and base_url:
        return "openai", base_url, os.environ.get("OPENAI_API_KEY")
    raise UsageError(f"unknown provider {name!r}", hint="try anthropic, openai, google, ollama, llamacpp, groq …")


def _local_targets() -> list[tuple[str, str]]:
    from agentcli.providers.ollama import ollama_base_url
    from agentcli.providers.profiles import get_profile

    targets = [("ollama", ollama_base_url(None))]
    for name in LOCAL_PROFILES:
        p = get_profile(name)
        if p is not None:
            targets.append((name, p.resolve_base_url()))
    return targets


def render_table(entries: list[ModelEntry]) -> str:
    def price(v: float | None) -> str:
        return "-" if v is None else f"{v:g}"

    rows = [("PROVIDER", "MODEL", "CONTEXT", "$IN/M", "$OUT/M", "SOURCE")]
    rows += [(e.provider, e.name, f"{e.context_window:,}" if e.context_window else "-", price(e.input_price),
              price(e.output_price), e.source) for e in entries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in rows)


async def _name_local(entries: list[ModelEntry], url: str) -> list[ModelEntry]:
    """A llama.cpp server says so at /props (with its runtime context): name it and its model as it serves them."""
    import dataclasses

    from agentcli.assembly.served import display_name, host_label
    from agentcli.providers import probe

    props = await probe.llamacpp_props(url)
    if props is None:  # named as `-p` names it (agentcli.assembly.served)
        return [dataclasses.replace(_named(e), provider=host_label(url, False)) for e in entries]
    n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
    return [dataclasses.replace(e, provider=host_label(url, True), name=display_name(e.name),
                                context_window=n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else e.context_window)
            for e in entries]


def _named(entry: ModelEntry) -> ModelEntry:
    import dataclasses

    from agentcli.assembly.served import display_name

    return dataclasses.replace(entry, name=display_name(entry.name))
