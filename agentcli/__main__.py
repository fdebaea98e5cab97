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
    # Start-up creates a few hundred thousand long-lived objects (modules, classes, functions) and next to no
    # garbage cycles, yet the cyclic GC would scan them over and over while they are made: ~5 % of a `-p` run.
    # Paused here; `run` resumes it when start-up is over (at once for a subcommand).
    import gc

    gc.disable()
    from agentcli.cli.entry import run

    raise SystemExit(run(argv, exit_when_done=True))


if __name__ == "__main__":
    main()
