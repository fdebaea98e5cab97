"""`agentcli serve`: the HTTP API over warm sessions (agentcli.server; docs/server.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentcli.commands import new_app, reporting_errors

app = new_app("Serve agentcli sessions over HTTP (loopback and a bearer token by default).")


@app.command()
def _serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="N", help="the port (0: any free one)")] = 8787,
    allow_remote: Annotated[bool, typer.Option(
        "--allow-remote", help="allow a --host that is not loopback (the token is still required)")] = False,
    model: Annotated[str | None, typer.Option(metavar="MODEL", help="provider/model or a bare model name")] = None,
    provider: Annotated[str | None, typer.Option(metavar="PROVIDER", help="the provider")] = None,
    base_url: Annotated[str | None, typer.Option(metavar="URL", help="the provider's base URL")] = None,
) -> int:
    flags = {k: v for k, v in {"model": model, "provider": provider, "base_url": base_url}.items() if v is not None}

    def serve() -> int:
        from agentcli.server.run import run_server

        return run_server(host, port, allow_remote, flags)

    return reporting_errors(serve)
