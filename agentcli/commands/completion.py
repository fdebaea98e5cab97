"""`agentcli completion [bash|zsh|fish]`: print the shell completion script (as `codex completion`, bash by default), to
be sourced or saved where the shell looks for completions (README: Shell completion)."""

from __future__ import annotations

import sys
from typing import Annotated, Literal

import typer

from agentcli.commands import entry, new_app

app = new_app("print the shell completion script for bash, zsh or fish")


@app.command(help="Print the completion script for SHELL. bash: add eval \"$(agentcli completion bash)\" to "
                  "~/.bashrc; zsh: save it as _agentcli in a directory on $fpath; fish: save it as "
                  "~/.config/fish/completions/agentcli.fish")
def completion(shell: Annotated[Literal["bash", "zsh", "fish"], typer.Argument(  # agentcli.cli.completion.SHELLS
        metavar="SHELL", show_default=False, help="bash (the default, as codex's), zsh or fish")] = "bash") -> int:
    from agentcli.cli.completion import script

    sys.stdout.write(script(shell))
    return 0


main = entry(app, "completion")
