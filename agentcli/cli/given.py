"""What `-p` and `--cwd` give, read and checked the same way by every path: the usual one (agentcli.cli.entry)
and the thin `--attach` client (agentcli.server.attach), which imports only this of the command line."""

from __future__ import annotations

import os
import sys

from agentcli.errors import UsageError


def read_prompt(prompt: str | None) -> str:
    """With -p the prompt is the argument, or stdin when no argument was given."""
    if prompt is not None:
        if not prompt.strip():
            raise UsageError("-p got an empty prompt", hint='agentcli -p "your task"')
        return prompt
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("-p needs a prompt", hint='agentcli -p "your task", or pipe it: echo "task" | agentcli -p')
    text = sys.stdin.read()
    if not text.strip():
        raise UsageError("-p got an empty prompt on stdin", hint='agentcli -p "your task"')
    return text


def given_cwd(given: str | None) -> str:
    """`--cwd DIR` expanded and resolved (else the current directory); not a directory is a usage error."""
    if given is None:
        return os.getcwd()
    cwd = os.path.expanduser(given)
    if not os.path.isdir(cwd):
        raise UsageError(f"--cwd {given}: not a directory", hint="pass an existing directory")
    return os.path.realpath(cwd)
