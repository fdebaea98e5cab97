"""Command line: flags → Settings → a front end (headless printer or REPL).

argparse rather than typer: `--help` must answer in well under 200 ms and `-r` takes an optional value.
Subcommands (`agentcli sessions …`) live in agentcli.commands.<name> and are imported only when named.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli import __version__
from agentcli.errors import AgentCliError, UsageError

if TYPE_CHECKING:
    from agentcli.settings.config import Settings

SUBCOMMANDS: dict[str, str] = {
    "sessions": "list, show, fork, rewind, export and repair stored sessions",
    "models": "list models (catalog for hosted providers, live probe for local servers)",
    "permissions": "list, add and remove permission rules",
    "presets": "list and show tool presets",
    "mcp": "add, list, show and remove MCP servers",
    "sandbox": "run a command under the configured sandbox; show what it allows",
    "doctor": "one screen for a bug report: sandbox, ripgrep, providers, trust",
    "hooks": "list the hooks in force, import them from Claude Code's settings",
    "agents": "list subagent definitions (.claude/agents, .agentcli/agents, built-ins)",
    "usage": "tokens and cost over time, by day, project, model or provider",
}

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
OUTPUT_FORMATS = ("text", "json", "stream-json")

EXIT_STATUSES = """exit statuses:
  0   success
  1   the agent or runtime failed (see the error message / result.error)
  2   usage or configuration error (bad flag, no provider, missing API key)
  3   the run finished but tool calls were denied (listed in permission_denials)
  4   a turn, budget or tool-call limit stopped the run
  75  a retryable provider failure outlasted the retries (rate limit, overload, timeout)
  130 / 129 / 143  -p stopped by SIGINT / SIGHUP / SIGTERM (every process it started is killed; the result
      line is still printed, is_error true, error code interrupted or terminated)
  141 stdout was closed early (e.g. `| head -1`): the run was stopped quietly
"""


def _tool_list(value: str) -> list[str]:
    from agentcli.permissions.rules import split_rule_list

    return split_rule_list(value)


def build_parser() -> argparse.ArgumentParser:
    subs = "\n".join(f"  {name:<12} {text}" for name, text in SUBCOMMANDS.items())
    p = argparse.ArgumentParser(
        prog="agentcli",
        description="A terminal coding agent. Without -p: an interactive session. With -p: one task, headless.",
        epilog=f"commands (agentcli COMMAND --help):\n{subs}\n\n{EXIT_STATUSES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("prompt", nargs="?", help="the prompt (with -p: the task; without: sent when the REPL starts)")
    p.add_argument("-p", "--print", dest="print_mode", action="store_true",
                   help="run one task headless and print the result (prompt as argument or on stdin)")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, help="with -p: text (default), json or stream-json")
    p.add_argument("--include-partial-messages", action="store_true", default=None,
                   help="with stream-json: also emit stream_event lines for each delta")
    p.add_argument("--verbose", action="store_true", default=None, help="more detail on stderr")
    p.add_argument("--model", help="provider/model or a bare model name (e.g. anthropic/claude-sonnet-4-5, gpt-5)")
    p.add_argument("--provider", help="anthropic, openai, google, ollama, or an OpenAI-compatible profile name")
    p.add_argument("--base-url", help="the provider's base URL (a local server: http://localhost:8080/v1)")
    p.add_argument("--effort", choices=("low", "medium", "high"), help="reasoning effort for models that think")
    p.add_argument("--permission-mode", choices=PERMISSION_MODES, help="how tool calls are allowed")
    p.add_argument("--sandbox", dest="sandbox_mode", choices=("read-only", "workspace-write", "danger-full-access"),
                   help="how commands are confined (default: workspace-write where supported; see docs/sandbox.md)")
    p.add_argument("--dangerously-skip-permissions", action="store_true",
                   help="same as --permission-mode bypassPermissions")
    # nargs="+" as Claude Code: `--allowedTools Read "Bash(git diff:*)"`; commas work too.
    p.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", action="extend", nargs="+",
                   type=_tool_list, metavar="TOOL", help="tools (or rules) allowed without asking")
    p.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", action="extend",
                   nargs="+", type=_tool_list, metavar="TOOL", help="tools (or rules) always denied")
    p.add_argument("--preset", help="tool preset: coding, readonly, minimal, plan, review, or your own")
    p.add_argument("--add-dir", dest="add_dirs", action="append", metavar="DIR",
                   help="another directory the file tools may use")
    p.add_argument("--append-system-prompt", help="text added to the end of the system prompt")
    p.add_argument("--system-prompt", help="replace the system prompt")
    p.add_argument("--cwd", help="run as if started in this directory")
    p.add_argument("--mcp-config", dest="mcp_config", action="append", metavar="FILE_OR_JSON",
                   help='MCP servers from a file or a JSON string ({"mcpServers": {...}}); repeatable')
    p.add_argument("--strict-mcp-config", action="store_true", default=None,
                   help="use only the --mcp-config servers, none from settings or .mcp.json")
    p.add_argument("--settings", metavar="FILE_OR_JSON",
                   help="more settings (hooks, permissions …) from a JSON file or inline JSON, as Claude Code's")
    p.add_argument("--max-turns", type=int, help="stop after this many model requests")
    p.add_argument("--max-budget-usd", type=float, help="stop when the run has cost this much")
    p.add_argument("--max-tool-calls-per-turn", type=int, help="stop when one reply asks for more tool calls")
    p.add_argument("--request-timeout", dest="request_timeout_s", type=float, metavar="SECONDS",
                   help="timeout for one model request")
    p.add_argument("--tool-timeout", dest="tool_timeout_s", type=float, metavar="SECONDS",
                   help="timeout for one tool call")
    p.add_argument("-c", "--continue", dest="continue_", action="store_true", default=None,
                   help="continue the latest session in this project")
    p.add_argument("-r", "--resume", nargs="?", const="", metavar="ID_OR_NAME",
                   help="resume a session (no value: pick one)")
    p.add_argument("--fork-session", action="store_true", default=None,
                   help="with --resume/--continue: continue in a new session")
    p.add_argument("--session-id", help="use this UUID for the new session")
    p.add_argument("--no-session-persistence", action="store_true", default=None, help="do not save this session")
    p.add_argument("-n", "--name", help="a name for this session")
    p.add_argument("-v", "--version", action="version", version=f"{__version__} (agentcli)")
    return p


def _flags(ns: argparse.Namespace) -> dict[str, Any]:
    flags = dict(vars(ns))
    for key in ("allowed_tools", "disallowed_tools"):
        groups = flags.get(key)
        flags[key] = tuple(t for g in groups for t in g) if groups else None
    if flags.pop("dangerously_skip_permissions", False):
        flags["permission_mode"] = "bypassPermissions"
    if flags.get("mcp_config"):
        flags["mcp_config"] = tuple(flags["mcp_config"])
    dirs = flags.get("add_dirs")
    flags["add_dirs"] = tuple(Path(d).expanduser().resolve() for d in dirs) if dirs else None
    for key in ("prompt", "print_mode", "cwd"):
        flags.pop(key, None)
    return flags


def _cwd(ns: argparse.Namespace) -> Path:
    if ns.cwd is None:
        return Path.cwd()
    cwd = Path(ns.cwd).expanduser()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {ns.cwd}: not a directory", hint="pass an existing directory")
    return cwd.resolve()


def _read_prompt(ns: argparse.Namespace) -> str:
    """With -p the prompt is the argument, or stdin when no argument was given."""
    if ns.prompt is not None:
        if not str(ns.prompt).strip():
            raise UsageError("-p got an empty prompt", hint='agentcli -p "your task"')
        return str(ns.prompt)
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("-p needs a prompt", hint='agentcli -p "your task", or pipe it: echo "task" | agentcli -p')
    text = sys.stdin.read()
    if not text.strip():
        raise UsageError("-p got an empty prompt on stdin", hint='agentcli -p "your task"')
    return text


def _untrusted(settings: Settings) -> list[str]:
    """What the project's shared files would do before they are trusted (settings.toml grants, .mcp.json
    servers); reading .mcp.json only when it exists and is not trusted yet."""
    from agentcli.settings import trust

    found = list(settings.untrusted)
    root = settings.project_root
    if trust.mcp_json_file(root).is_file() and not trust.is_mcp_trusted(root):
        import contextlib

        from agentcli.mcp.config import describe, load

        with contextlib.suppress(AgentCliError):
            found += describe(load(root).untrusted.values())
    return found


def _ask_trust(settings: Settings, ns: argparse.Namespace, untrusted: list[str]) -> Settings:
    """Before the first session in a project whose shared settings grant something: show it and ask."""
    from agentcli.settings import trust
    from agentcli.settings.config import load_settings

    path = trust.shared_settings_file(settings.project_root)
    what = "\n".join(f"  - {g}" for g in untrusted)
    sys.stdout.write(f"This project's shared files ({path.name}, .mcp.json) would:\n{what}\n")
    answer = input("Trust these settings for this project? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        sys.stdout.write("Not trusted: its deny and ask rules apply, its grants do not.\n")
        return settings
    trust.trust(settings.project_root)
    return load_settings(settings.cwd, _flags(ns))


def _require_provider(settings: Settings) -> None:
    """The REPL with nothing configured would only fail at the first prompt: explain and stop now (exit 2).
    The usual case (configured) costs no event loop before the prompt."""
    from agentcli.assembly.firstrun import anything_configured, require_configured

    if not anything_configured(settings.model, settings.provider, settings.base_url):
        import asyncio

        asyncio.run(require_configured(settings.model, settings.provider, settings.base_url))


def run(argv: list[str], *, exit_when_done: bool = False) -> int:
    """Parse `argv`, run, and return the exit status. Errors become one clear line on stderr.

    `exit_when_done` (the `agentcli` command itself, never a caller in-process): a finished `-p` run ends the
    process at once (`exit_now`) instead of returning."""
    if argv and argv[0] in SUBCOMMANDS:
        module = importlib.import_module(f"agentcli.commands.{argv[0]}")
        status: int = module.main(argv[1:])
        return status
    ns = build_parser().parse_args(argv)
    try:
        from agentcli.assembly.resumed import with_session_setup
        from agentcli.settings.config import load_settings

        settings = with_session_setup(load_settings(_cwd(ns), _flags(ns)))
        if ns.print_mode:
            from agentcli.output.headless import run_headless

            status = run_headless(settings, _read_prompt(ns))
            if exit_when_done:
                exit_now(status)
            return status
        untrusted = _untrusted(settings) if sys.stdin.isatty() else []
        if untrusted:
            settings = _ask_trust(settings, ns, untrusted)
        _require_provider(settings)
        from agentcli.ui.repl import run_repl

        return run_repl(settings, ns.prompt)
    except AgentCliError as err:
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    except KeyboardInterrupt:
        sys.stderr.write("agentcli: interrupted\n")
        return 130


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
