"""`agentcli acp`: agentcli as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, …) and ACP
clients (acpx). See agentcli.acp and docs/acp.md."""

from __future__ import annotations

from typing import Annotated

import typer

from agentcli.commands import new_app, reporting_errors

app = new_app("Serve the Agent Client Protocol on stdin/stdout (for editors and ACP clients).")


@app.command()
def _acp(
    model: Annotated[str | None, typer.Option(metavar="MODEL", help="provider/model or a bare model name")] = None,
    provider: Annotated[str | None, typer.Option(metavar="PROVIDER", help="the provider")] = None,
    base_url: Annotated[str | None, typer.Option(metavar="URL", help="the provider's base URL")] = None,
    permission_mode: Annotated[str | None, typer.Option(
        metavar="MODE", help="the mode new sessions start in: default, acceptEdits or plan")] = None,
) -> int:
    from agentcli.errors import UsageError

    flags = {k: v for k, v in {"model": model, "provider": provider, "base_url": base_url,
                                "permission_mode": permission_mode}.items() if v is not None}

    def serve() -> int:
        if permission_mode not in (None, "default", "acceptEdits", "plan"):
            raise UsageError(f"--permission-mode {permission_mode}: not an ACP session mode",
                             hint="one of default, acceptEdits, plan")
        from agentcli.acp.run import run_acp

        return run_acp(flags)

    return reporting_errors(serve)
