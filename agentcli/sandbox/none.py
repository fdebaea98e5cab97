"""No mechanism: the command runs as it is. Chosen only when the platform has none, or the one it has does not
work here (start-up, the event stream and `agentcli doctor` say so).

Process lifetime still holds on Linux: the command runs under agentcli.proc.reaper, a child subreaper that kills
whatever the command leaves behind when it ends (bubblewrap's PID namespace does that otherwise)."""

from __future__ import annotations

import sys

from agentcli.sandbox.spec import Launch


class NoSandbox:
    name = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def argv(self, launch: Launch) -> list[str]:
        if sys.platform.startswith("linux"):
            from agentcli.proc.reaper import contained

            return contained(list(launch.argv))
        return list(launch.argv)
