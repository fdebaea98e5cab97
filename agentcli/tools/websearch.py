"""WebSearch (Claude Code's name and arguments: `query`, `allowed_domains`, `blocked_domains`) through a search
backend you configure, so search works with every model, local ones included:

    [web_search]
    backend = "searxng"                 # searxng | brave | tavily
    url = "http://localhost:8888"       # SearXNG's address (Brave and Tavily have defaults)
    api_key_env = "BRAVE_API_KEY"       # where the key is, for Brave and Tavily

The backend's address and key come only from your settings (a project's shared settings need trust), never from
the model.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from agentcli.record import record
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.specs import FromSpec

MAX_RESULTS = 10
DEFAULT_URLS = {"brave": "https://api.search.brave.com", "tavily": "https://api.tavily.com"}


@record
class Result:
    title: str
    url: str
    snippet: str


class SearchError(Exception):
    pass


async def search(config: dict[str, Any], query: str, env: dict[str, str]) -> list[Result]:
    from agentcli.net.preload import ensure

    ensure()  # never beside another thread's import of the stack
    import httpx

    backend = str(config.get("backend") or "")
    url = str(config.get("url") or DEFAULT_URLS.get(backend, "")).rstrip("/")
    key_env = config.get("api_key_env")
    key = env.get(str(key_env), "") if key_env else ""
    if backend not in ("searxng", "brave", "tavily") or not url:
        raise SearchError("no search backend is configured: set [web_search] backend = \"searxng\" | \"brave\" | "
                          "\"tavily\" (and url / api_key_env) in your settings")
    if backend != "searxng" and not key:
        raise SearchError(f"the {backend} backend needs a key: set [web_search] api_key_env to a variable that "
                          "holds it")
    from agentcli.net.tls import trust_context  # the one trust store (SSL_CERT_FILE / SSL_CERT_DIR honoured)

    async with httpx.AsyncClient(timeout=20.0, trust_env=True, verify=trust_context()) as client:
        if backend == "searxng":
            r = await client.get(f"{url}/search", params={"q": query, "format": "json"})
            items = _json(r).get("results", [])
            return [Result(str(i.get("title", "")), str(i.get("url", "")), str(i.get("content", ""))) for i in items]
        if backend == "brave":
            r = await client.get(f"{url}/res/v1/web/search", params={"q": query, "count": MAX_RESULTS},
                                 headers={"x-subscription-token": key, "accept": "application/json"})
            items = (_json(r).get("web") or {}).get("results", [])
            return [Result(str(i.get("title", "")), str(i.get("url", "")), str(i.get("description", "")))
                    for i in items]
        r = await client.post(f"{url}/search", json={"query": query, "max_results": MAX_RESULTS},
                              headers={"authorization": f"Bearer {key}"})
        items = _json(r).get("results", [])
        return [Result(str(i.get("title", "")), str(i.get("url", "")), str(i.get("content", ""))) for i in items]


def _json(response: Any) -> dict[str, Any]:
    if response.status_code >= 400:
        raise SearchError(f"the search backend answered HTTP {response.status_code}")
    try:
        data = response.json()
    except ValueError as err:
        raise SearchError("the search backend did not answer with JSON") from err
    if not isinstance(data, dict):
        raise SearchError("the search backend's answer is not a JSON object")
    return data


def domain_ok(url: str, allowed: list[str], blocked: list[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()

    def under(domain: str) -> bool:
        d = domain.lower().lstrip("*.").rstrip(".")
        return host == d or host.endswith("." + d)

    if any(under(d) for d in blocked):
        return False
    return not allowed or any(under(d) for d in allowed)


class WebSearchTool(FromSpec, spec="WebSearch"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        config = ctx.web.search
        try:
            found = await search(config, str(args["query"]), ctx.env or {})
        except SearchError as err:
            return ToolOutput.error(f"WebSearch: {err}")
        except Exception as err:  # network errors reach the model as text
            return ToolOutput.error(f"WebSearch failed: {type(err).__name__}: {err}")
        allowed, blocked = list(args.get("allowed_domains") or []), list(args.get("blocked_domains") or [])
        kept = [r for r in found if r.url.startswith(("http://", "https://")) and domain_ok(r.url, allowed, blocked)]
        backend = config.get("backend")
        if not kept:
            return ToolOutput(f"No results for {args['query']!r} (search backend: {backend}).")
        lines = [f"Results for {args['query']!r} (search backend: {backend}):"]
        for i, r in enumerate(kept[:MAX_RESULTS], 1):
            lines.append(f"{i}. {r.title}\n   {r.url}\n   {r.snippet.strip()[:500]}")
        return ToolOutput(ctx.redact("\n".join(lines)), display=f"{len(kept[:MAX_RESULTS])} results via {backend}")
