"""No mechanism: the command runs as it is. Chosen only when the platform has none (or the user said
danger-full-access where no mechanism exists); start-up and `agentcli doctor` say so."""

from __future__ import annotations

from agentcli.sandbox.spec import Launch


class NoSandbox:
    name = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def argv(self, launch: Launch) -> list[str]:
        return list(launch.argv)
