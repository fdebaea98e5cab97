"""Command line: flags → Settings → a front end (headless printer or REPL).

The root flags are the one table `ROOT_FLAGS` (agentcli.cli.table): typer builds the command from it
(agentcli.cli.app: help, panels, checks, errors, subcommands), and a valid root invocation (`-p`, the REPL) is read
with the same table without importing typer (see `fast_values`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.cli import compat as cli_compat
from agentcli.cli.flags import ArgvError, fast_parse
from agentcli.cli.given import given_cwd, read_prompt
from agentcli.cli.table import ROOT_FLAGS, SUBCOMMANDS
from agentcli.errors import AgentCliError

if TYPE_CHECKING:
    from agentcli.settings.config import Settings


def settings_flags(values: dict[str, Any]) -> dict[str, Any]:
    """Parsed option values (by `Flag.name`, only those given) → the flag layer of Settings; repeatable options
    become tuples."""
    flags = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()
             if v is not None and v is not False and v != []}
    for key in ("allowed_tools", "disallowed_tools"):
        if key in flags:
            from agentcli.permissions.rules import split_rule_list

            flags[key] = tuple(t for v in flags[key] for t in split_rule_list(v))
    if flags.pop("dangerously_skip_permissions", False):
        flags["permission_mode"] = "bypassPermissions"
    if "add_dirs" in flags:
        flags["add_dirs"] = tuple(Path(d).expanduser().resolve() for d in flags["add_dirs"])
    for key in ("prompt", "print_mode", "cwd", "help", "version", "attach", "token"):
        flags.pop(key, None)
    return cli_compat.drop(flags)


def _cwd(values: dict[str, Any]) -> Path:
    return Path(given_cwd(values.get("cwd")))


def _untrusted(settings: Settings) -> list[str]:
    """What the project's own files would do before they are trusted (settings grants, presets, .mcp.json
    servers); reading .mcp.json only when it exists and is not trusted yet."""
    from agentcli.settings import trust

    root = settings.project_root
    found = [*settings.untrusted, *trust.untrusted_presets(root)]
    if trust.mcp_json_file(root).is_file() and not trust.is_mcp_trusted(root):
        import contextlib

        from agentcli.mcp.config import describe, load

        with contextlib.suppress(AgentCliError):
            found += describe(load(root).untrusted.values())
    return [trust.printable(g) for g in found]


def _ask_trust(settings: Settings, values: dict[str, Any], untrusted: list[str]) -> Settings:
    """Before the first session in a project whose shared settings grant something: show it and ask."""
    from agentcli.settings import trust
    from agentcli.settings.config import load_settings

    what = "\n".join(f"  - {g}" for g in untrusted)
    sys.stdout.write(f"This project's own files (.agentcli/, .claude/, .mcp.json) would:\n{what}\n")
    answer = input("Trust these settings for this project? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        sys.stdout.write("Not trusted: its deny and ask rules apply, its grants do not.\n")
        return settings
    trust.trust(settings.project_root)
    trusted = load_settings(settings.cwd, settings_flags(values))
    from agentcli.hooks.setup import pin_scripts

    pin_scripts(trusted)  # the project files its hooks run are trusted with it, as they are now (hooks.scripts)
    return trusted


def _require_provider(settings: Settings, values: dict[str, Any]) -> Settings:
    """The REPL with nothing configured would only fail at the first prompt. In a terminal: offer a local
    model server or take a provider's key, save it, and go on (agentcli.ui.firstrun); otherwise explain and
    stop now (exit 2). The usual case (configured) costs no event loop before the prompt."""
    from agentcli.assembly.firstrun import anything_configured, require_configured

    if anything_configured(settings.model.name, settings.model.provider, settings.model.base_url):
        return settings
    if settings.session.resume is not None or settings.session.continue_:
        # A stored session brings its own provider (assembly.resumed), so which session comes first: `-r`'s
        # picker runs in the REPL (which checks again once one is picked); an unknown id, or nothing to
        # continue, is said now rather than "no provider".
        if settings.session.resume == "":
            return settings
        from agentcli.ui.resume import resolve_stored

        resolve_stored(settings)
    if sys.stdin.isatty() and sys.stdout.isatty():
        from agentcli.settings.config import load_settings
        from agentcli.ui.firstrun import set_up

        return set_up(lambda: load_settings(settings.cwd, settings_flags(values)))
    import asyncio

    asyncio.run(require_configured(settings.model.name, settings.model.provider, settings.model.base_url))
    return settings


def fast_values(argv: list[str]) -> dict[str, Any] | None:
    """A valid root invocation (`-p` or the REPL) read with the table alone: typer's parsing costs ~20 ms of
    imports and builds a pydantic adapter per option (~100 ms of CPU in all, bench/RESULTS.md), which neither a
    headless run nor the REPL's start should pay. None for anything else (a subcommand, --help, --version, any
    mistake): typer parses those and words every error. tests/cli/test_command_tree.py holds the two readers
    to the same values for every argv shape."""
    if argv[:1] and argv[0] in SUBCOMMANDS:
        return None
    try:
        parsed = fast_parse(argv, ROOT_FLAGS)
    except ArgvError:
        return None
    if len(parsed.positionals) > 1:
        return None
    return {**parsed.values, "prompt": parsed.positionals[0] if parsed.positionals else None}


def run(argv: list[str], *, exit_when_done: bool = False) -> int:
    """Parse `argv`, run, and return the exit status. Errors become one clear line on stderr.

    `exit_when_done` (the `agentcli` command itself, never a caller in-process): a finished `-p` run ends the
    process at once (`exit_now`) instead of returning, and the cyclic GC that agentcli/__main__.py paused for
    start-up is resumed when start-up is over (`start_up_done`)."""
    started = start_up_done if exit_when_done else None
    values = fast_values(argv)
    if values is None:
        if started:
            started()
        from agentcli.cli.app import dispatch

        outcome = dispatch(argv)
        if isinstance(outcome, int):
            return outcome
        values = outcome
    try:
        for note in cli_compat.check(values):
            sys.stderr.write(note + "\n")
        if values.get("attach"):
            status = _attached(values)
            if exit_when_done:
                exit_now(status)
            return status
        from agentcli.assembly.resumed import with_session_setup
        from agentcli.settings.config import load_settings

        settings = with_session_setup(load_settings(_cwd(values), settings_flags(values)))
        if values.get("input_format") == "stream-json" or values.get("permission_prompt_tool") is not None \
                or values.get("replay_user_messages"):
            from agentcli.sdkio.cli import run_stream

            status = run_stream(settings, values)
            if exit_when_done:
                exit_now(status)
            return status
        if values.get("print_mode"):
            if settings.telemetry.enabled:  # its import overlaps the rest of start-up: the exit waits for none of it
                from agentcli.telemetry.setup import preload

                preload()
            from agentcli.headless import run_headless

            status = run_headless(settings, read_prompt(values.get("prompt")), on_ready=started)
            if exit_when_done:
                exit_now(status)
            return status
        untrusted = _untrusted(settings) if sys.stdin.isatty() else []
        if untrusted:
            settings = _ask_trust(settings, values, untrusted)
        settings = _require_provider(settings, values)
        if values.get("permission_mode") is None and not values.get("dangerously_skip_permissions"):
            # The REPL's default is `auto` (Claude Code's sandbox auto-allow): a command the kernel sandbox
            # confines and an edit inside the project run without a question; /rewind undoes them.
            from dataclasses import replace

            settings = replace(settings, permissions=replace(settings.permissions, fallback="auto"))
        from agentcli.ui.repl import run_repl

        # (start-up ends once the REPL's prompt session exists: importing prompt_toolkit and making the session
        # create tens of thousands of objects, which the cyclic GC would scan over and over, ~20 M instructions)
        return run_repl(settings, values.get("prompt"), on_ready=started)
    except AgentCliError as err:
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    except KeyboardInterrupt:
        sys.stderr.write("agentcli: interrupted\n")
        return 130


def _attached(values: dict[str, Any]) -> int:
    """`--attach URL`: a thin client of `agentcli serve` (agentcli.server.attach imports nothing of the agent);
    the server's own settings and model run the turn. The `agentcli` command runs an argv of the thin client's
    flags alone before importing this module (agentcli/__main__.py); what comes here names others too, which
    are reported, or is a caller's in-process `run`."""
    from agentcli.server.attach import ATTACH_FLAGS, run_values

    ignored = sorted(k for k, v in values.items() if k not in ATTACH_FLAGS and v not in (None, False, []))
    if ignored:  # the warm server's settings run the turn: say so rather than drop them quietly
        spelled = {f.name: next((n for n in f.names if n.startswith("--")), f.names[0]) for f in ROOT_FLAGS}
        names = ", ".join(spelled.get(k, k) for k in ignored)
        sys.stderr.write(f"agentcli: with --attach the server's settings apply; ignored: {names}\n")
    return run_values(values)


def start_up_done() -> None:
    """The process's start-up is over (see agentcli/__main__.py): what exists now (modules, classes, settings,
    the agent) mostly lives as long as the process, so it is frozen out of the cyclic GC's later scans, which
    then see only what the run itself creates; and collection resumes."""
    import gc

    gc.freeze()
    gc.enable()


def exit_now(status: int) -> None:
    """End the process without the interpreter's teardown (freeing ~250 modules costs 15–25 ms here), once
    everything that matters is done: the run has closed its session and provider, stdout and stderr are flushed
    here. Returns (the caller exits normally) when another non-daemon thread is still running or coverage
    measurement is on."""
    import os
    import threading

    if "coverage" in sys.modules or any(t.is_alive() and not t.daemon for t in threading.enumerate()
                                        if t is not threading.main_thread()):
        return
    if "logging" in sys.modules:
        import logging

        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:  # `| head -1` left early: the same quiet status in every output format
            status = 141 if stream is sys.stdout else status
        except (OSError, ValueError):
            pass
    os._exit(status)
