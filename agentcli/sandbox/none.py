"""No mechanism: the command runs as it is. Chosen only when the platform has none (or the user said
danger-full-access where no mechanism exists); start-up and `agentcli doctor` say so."""

from __future__ import annotations

from pathlib import Path

from agentcli.sandbox.spec import SandboxSpec


class NoSandbox:
    name = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def argv(
        self,
        spec: SandboxSpec,
        mode: str,
        argv: list[str],
        cwd: Path,
        *,
        hidden: list[Path],
        extra_ro: tuple[str, ...] = (),
        proxy: str | None = None,
    ) -> list[str]:
        return list(argv)
