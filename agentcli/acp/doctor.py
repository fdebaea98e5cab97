"""`agentcli doctor`'s line about `agentcli acp`: the ACP SDK it runs on (its version and protocol version), or why
it cannot start. The SDK is imported only when asked (doctor asks; `agentcli --help` does not)."""

from __future__ import annotations

DIST = "agent-client-protocol"


def doctor_lines() -> list[str]:
    from importlib import metadata

    try:
        version = metadata.version(DIST)
    except metadata.PackageNotFoundError:
        return [f"acp: the {DIST} SDK is not installed: `agentcli acp` cannot start (reinstall agentcli)"]
    try:
        from acp import PROTOCOL_VERSION
    except Exception as err:  # whatever breaks the import is what `agentcli acp` would meet
        return [f"acp: {DIST} {version} is installed but cannot be imported ({type(err).__name__}: "
                f"{str(err)[:160]}): `agentcli acp` cannot start (reinstall agentcli)"]
    return [f"acp: {DIST} {version}, ACP protocol version {PROTOCOL_VERSION}: `agentcli acp` serves editors on "
            "stdio (client file system, MCP servers and session/load supported)"]
