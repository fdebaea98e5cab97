"""Entry point. `--version`, `completion SHELL` and the shells' completion callback (`__complete`) are answered
before the CLI is imported, to keep them instant."""

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["--version"], ["-v"], ["-V"]):
        from agentcli.version import __version__

        sys.stdout.write(f"{__version__} (agentcli)\n")
        return
    if argv[:1] == ["completion"] and len(argv) <= 2:
        # Shells run this at every start (`eval "$(agentcli completion bash)"`): the shipped script, no CLI import.
        from agentcli.cli.completion import SHELLS, script

        shell = argv[1] if len(argv) == 2 else SHELLS[0]
        if shell in SHELLS:
            sys.stdout.write(script(shell))
            return
    if argv[:1] == ["__complete"]:
        from agentcli.cli.completion import complete_values

        raise SystemExit(complete_values(argv[1:]))
    if any(word == "--attach" or word.startswith("--attach=") for word in argv):
        # A thin client of a warm `agentcli serve`: its whole budget is ~45 ms (bench/RESULTS.md), so an argv of
        # its flags alone runs before the flag table, typer or anything of the agent is imported.
        from agentcli.server.attach import main as attached

        status = attached(argv)
        if status is not None:
            _exit_now(status)
    # Start-up creates a few hundred thousand long-lived objects (modules, classes, functions) and next to no
    # garbage cycles, yet the cyclic GC would scan them over and over while they are made: ~5 % of a `-p` run.
    # Paused here; `run` resumes it when start-up is over (at once for a subcommand).
    import gc

    gc.disable()
    from agentcli.cli.entry import run

    raise SystemExit(run(argv, exit_when_done=True))


def _exit_now(status: int) -> None:
    """Exit without the interpreter's teardown, once stdout and stderr are flushed (as agentcli.cli.entry's
    `exit_now`, which this path does not import)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # `| head -1` left early: the same quiet status as the usual path
            status = 141 if stream is sys.stdout else status
        except (OSError, ValueError):
            pass
    if "coverage" in sys.modules:
        raise SystemExit(status)
    os._exit(status)


if __name__ == "__main__":
    main()
