"""Entry point. `--version` is answered before anything else is imported, to keep it instant."""

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["--version"], ["-v"], ["-V"]):
        from agentcli import __version__

        sys.stdout.write(f"{__version__} (agentcli)\n")
        return
    from agentcli.cli import run

    raise SystemExit(run(argv, exit_when_done=True))


if __name__ == "__main__":
    main()
