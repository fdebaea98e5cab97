"""Subcommands: `agentcli NAME …` runs `agentcli.commands.NAME:main(argv) -> int`, imported only when named."""

from __future__ import annotations

import sys
from collections.abc import Callable

from agentcli.errors import AgentCliError


def reporting_errors(call: Callable[[], int]) -> int:
    """Run a subcommand body: an AgentCliError becomes one line on stderr and its exit status; a closed pipe
    (`agentcli sessions list | head`) is not an error."""
    try:
        return call()
    except AgentCliError as err:
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    except BrokenPipeError:
        return 0
