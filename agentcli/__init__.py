"""agentcli: a terminal coding agent. `agentcli.query()` is the Python API (see agentcli.api)."""

__version__ = "0.1.0"
