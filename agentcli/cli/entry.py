"""Command line: flags → Settings → a front end (headless printer or REPL).

The root flags are the table `ROOT_FLAGS` (agentcli.cli.flags): typer builds the command from it (agentcli.cli.app:
help, panels, checks, errors, subcommands), and a valid root invocation (`-p`, the REPL) is read with the same
table without importing typer (see `fast_values`).
Subcommands (`agentcli sessions …`) are modules agentcli.commands.<name>, registered in `SUBCOMMANDS` and imported
only when named. Adding a root flag is one `flag(…)` line; adding a subcommand is one module and one line here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.cli import compat as cli_compat
from agentcli.cli.flags import ArgvError, Flag, fast_parse, flag
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
    "acp": "serve the Agent Client Protocol on stdin/stdout (editors, ACP clients)",
    "serve": "serve sessions over HTTP (loopback, bearer token): prompts, SSE events, permissions",
}

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
OUTPUT_FORMATS = ("text", "json", "stream-json")
RUN, MODEL, PERMS, SESSION, CONTEXT, LIMITS = "Run", "Model", "Permissions", "Session", "Context", "Limits"

# Claude Code's flags keep Claude Code's meaning (`--allowedTools A B`, `"A,B"`, repeated; `-r` with or without a
# value); `metavar` names what the shells complete: SESSION, MODEL, PRESET, PROVIDER, DIR, FILE.
ROOT_FLAGS: tuple[Flag, ...] = (
    flag("-p", "--print", dest="print_mode", kind="switch", panel=RUN,
         help="run one task headless and print the result (prompt as argument or on stdin)"),
    flag("--output-format", choices=OUTPUT_FORMATS, panel=RUN, help="with -p: text (default), json or stream-json"),
    flag("--input-format", choices=("text", "stream-json"), panel=RUN,
         help="stream-json: user messages and control requests as JSON lines on stdin (the Claude Agent SDK's "
              "protocol; needs --output-format stream-json)"),
    flag("--replay-user-messages", kind="switch", panel=RUN,
         help="with --input-format stream-json: echo each user message on stdout, with its session record id"),
    flag("--permission-prompt-tool", choices=("stdio",), panel=PERMS,
         help="stdio: with --input-format stream-json, ask the SDK's can_use_tool callback"),
    flag("--include-partial-messages", kind="switch", panel=RUN,
         help="with stream-json: also emit stream_event lines for each delta"),
    flag("--verbose", kind="switch", panel=RUN, help="more detail on stderr"),
    flag("--model", metavar="MODEL",
         help="provider/model or a bare model name (e.g. anthropic/claude-sonnet-4-5, gpt-5)"),
    flag("--provider", metavar="PROVIDER",
         help="anthropic, openai, google, ollama, or an OpenAI-compatible profile name"),
    flag("--base-url", metavar="URL", help="the provider's base URL (a local server: http://localhost:8080/v1)"),
    flag("--effort", choices=("low", "medium", "high", "xhigh", "max"),
         help="reasoning effort for models that think (xhigh and max mean agentcli's highest, high)"),
    flag("--fallback-model", metavar="MODEL",
         help="answer with this model when the main one is overloaded or unavailable (after its retries)"),
    flag("--max-thinking-tokens", type=int, metavar="N",
         help="thinking budget in tokens (0: no thinking); mapped to the provider's effort levels"),
    flag("--thinking", choices=("adaptive", "enabled", "disabled"), help="adaptive (the model's default) or disabled"),
    flag("--permission-mode", choices=PERMISSION_MODES, panel=PERMS, help="how tool calls are allowed"),
    flag("--sandbox", dest="sandbox_mode", choices=("read-only", "workspace-write", "danger-full-access"), panel=PERMS,
         help="how commands are confined (default: workspace-write where supported; see docs/sandbox.md)"),
    flag("--dangerously-skip-permissions", kind="switch", panel=PERMS,
         help="same as --permission-mode bypassPermissions"),
    flag("--allow-dangerously-skip-permissions", dest="allow_bypass_permissions", kind="switch", panel=PERMS,
         help="let the session switch to bypassPermissions later (an SDK's set_permission_mode), not start in it"),
    flag("--allowedTools", "--allowed-tools", dest="allowed_tools", kind="many", metavar="TOOL", panel=PERMS,
         help="tools (or rules) allowed without asking: --allowedTools Read \"Bash(git diff:*)\", or \"Read,Edit\""),
    flag("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", kind="many", metavar="TOOL",
         panel=PERMS, help="tools (or rules) always denied"),
    flag("--preset", metavar="PRESET", panel=PERMS,
         help="tool preset: coding, readonly, minimal, plan, review, or your own"),
    flag("--add-dir", dest="add_dirs", kind="append", metavar="DIR", panel=CONTEXT,
         help="another directory the file tools may use"),
    flag("--append-system-prompt", metavar="TEXT", panel=CONTEXT, help="text added to the end of the system prompt"),
    flag("--system-prompt", metavar="TEXT", panel=CONTEXT,
         help="replace the whole system prompt (memory files are still added; \"\" for none)"),
    flag("--system-prompt-file", metavar="FILE", panel=CONTEXT, help="replace the system prompt with a file's text"),
    flag("--append-system-prompt-file", metavar="FILE", panel=CONTEXT, help="add a file's text to the system prompt"),
    flag("--tools", metavar="TOOLS", panel=PERMS,
         help='the exact tool set: "Read,Grep", "" for none, "default" for the preset\'s'),
    flag("--setting-sources", metavar="SOURCES", panel=CONTEXT,
         help='which settings files load: "user,project,local" (the default), "" for none'),
    flag("--json-schema", metavar="JSON", panel=RUN,
         help="structured output: the final answer must be JSON valid against this schema (result.structured_output)"),
    flag("--include-hook-events", kind="switch", panel=RUN, help="with stream-json: also emit hook events"),
    flag("--agents", metavar="JSON", panel=CONTEXT,
         help='subagents: {"name": {"description": "...", "prompt": "...", "tools": [...], "model": "..."}}'),
    flag("--cwd", metavar="DIR", panel=CONTEXT, help="run as if started in this directory"),
    flag("--mcp-config", kind="append", metavar="FILE_OR_JSON", panel=CONTEXT,
         help='MCP servers from a file or a JSON string ({"mcpServers": {...}}); repeatable'),
    flag("--strict-mcp-config", kind="switch", panel=CONTEXT,
         help="use only the --mcp-config servers, none from settings or .mcp.json"),
    flag("--settings", metavar="FILE_OR_JSON", panel=CONTEXT,
         help="more settings (hooks, permissions …) from a JSON file or inline JSON, as Claude Code's"),
    flag("--max-turns", type=int, metavar="N", panel=LIMITS, help="stop after this many model requests"),
    flag("--max-budget-usd", type=float, metavar="USD", panel=LIMITS, help="stop when the run has cost this much"),
    flag("--max-tool-calls-per-turn", type=int, metavar="N", panel=LIMITS,
         help="stop when one reply asks for more tool calls"),
    flag("--request-timeout", dest="request_timeout_s", type=float, metavar="SECONDS", panel=LIMITS,
         help="timeout for one model request"),
    flag("--tool-timeout", dest="tool_timeout_s", type=float, metavar="SECONDS", panel=LIMITS,
         help="timeout for one tool call"),
    flag("-c", "--continue", dest="continue_", kind="switch", panel=SESSION,
         help="continue the latest session in this project"),
    flag("-r", "--resume", kind="optional", metavar="SESSION", panel=SESSION,
         help="resume a session by id, prefix or name (no value: pick one)"),
    flag("--fork-session", kind="switch", panel=SESSION, help="with --resume/--continue: continue in a new session"),
    flag("--session-id", metavar="UUID", panel=SESSION, help="use this UUID for the new session"),
    flag("--resume-session-at", metavar="ID", panel=SESSION,
         help="with --resume: continue from this message (the ones after it are left out)"),
    flag("--no-session-persistence", kind="switch", panel=SESSION, help="do not save this session"),
    flag("-n", "--name", metavar="NAME", panel=SESSION, help="a name for this session"),
    flag("--attach", metavar="URL", panel=RUN,
         help="run on a warm `agentcli serve` at URL (-p, or a plain REPL); its token is found by itself on "
              "this machine"),
    flag("--token", metavar="TOKEN", panel=RUN,
         help="with --attach: the server's bearer token (else $AGENTCLI_SERVER_TOKEN, else the local one)"),
    *cli_compat.COMPAT_FLAGS,
    flag("-h", "--help", kind="help", panel=RUN, help="show this message and exit"),
    flag("-v", "--version", kind="version", panel=RUN, help="print the version and exit"),
)

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("agentcli", "an interactive session in this project"),
    ('agentcli "explain src/main.py"', "the same, starting with a prompt"),
    ('agentcli -p "fix the failing test" --permission-mode acceptEdits', "one task, headless, edits allowed"),
    ('git diff | agentcli -p "review this" --output-format json', "the prompt on stdin, one JSON result"),
    ('agentcli -p "tidy" --allowedTools Read Edit "Bash(git diff:*)"', "tools allowed without asking"),
    ("agentcli -c", "continue the latest session here"),
    ("agentcli -r", "pick a session to resume"),
    ("agentcli --model llamacpp --base-url http://127.0.0.1:8080/v1", "a local llama.cpp server"),
    ("agentcli sessions list", "a command (agentcli COMMAND --help for each)"),
)

EXIT_STATUSES: tuple[tuple[str, str], ...] = (
    ("0", "success"),
    ("1", "the agent or runtime failed (see the error message / result.error)"),
    ("2", "usage or configuration error (bad flag, no provider, missing API key)"),
    ("3", "the run finished but tool calls were denied (listed in permission_denials)"),
    ("4", "a turn, budget or tool-call limit stopped the run"),
    ("75", "a retryable provider failure outlasted the retries (rate limit, overload, timeout)"),
    ("130 / 129 / 143", "-p stopped by SIGINT / SIGHUP / SIGTERM (every process it started is killed; the result "
                        "line is still printed, is_error true, error code interrupted or terminated)"),
    ("141", "stdout was closed early (e.g. `| head -1`): the run was stopped quietly"),
)


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
    given = values.get("cwd")
    if given is None:
        return Path.cwd()
    cwd = Path(given).expanduser()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {given}: not a directory", hint="pass an existing directory")
    return cwd.resolve()


def _read_prompt(prompt: str | None) -> str:
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
    sys.stdout.write(f"This project's own files (.agentcli/, .mcp.json) would:\n{what}\n")
    answer = input("Trust these settings for this project? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        sys.stdout.write("Not trusted: its deny and ask rules apply, its grants do not.\n")
        return settings
    trust.trust(settings.project_root)
    return load_settings(settings.cwd, settings_flags(values))


def _require_provider(settings: Settings) -> None:
    """The REPL with nothing configured would only fail at the first prompt: explain and stop now (exit 2).
    The usual case (configured) costs no event loop before the prompt."""
    from agentcli.assembly.firstrun import anything_configured, require_configured

    if not anything_configured(settings.model, settings.provider, settings.base_url):
        import asyncio

        asyncio.run(require_configured(settings.model, settings.provider, settings.base_url))


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
            if settings.telemetry:  # its import overlaps the rest of start-up: the exit waits for none of it
                from agentcli.telemetry.setup import preload

                preload()
            from agentcli.headless import run_headless

            status = run_headless(settings, _read_prompt(values.get("prompt")), on_ready=started)
            if exit_when_done:
                exit_now(status)
            return status
        untrusted = _untrusted(settings) if sys.stdin.isatty() else []
        if untrusted:
            settings = _ask_trust(settings, values, untrusted)
        _require_provider(settings)
        if started:
            started()
        from agentcli.ui.repl import run_repl

        return run_repl(settings, values.get("prompt"))
    except AgentCliError as err:
        sys.stderr.write(f"agentcli: {err.one_line()} [{err.code}]\n")
        return err.exit_status
    except KeyboardInterrupt:
        sys.stderr.write("agentcli: interrupted\n")
        return 130


def _attached(values: dict[str, Any]) -> int:
    """`--attach URL`: a thin client of `agentcli serve` (agentcli.server.attach imports nothing of the agent);
    the server's own settings and model run the turn."""
    from agentcli.server.attach import run_attached

    resume = values.get("resume")
    if resume is not None and not (isinstance(resume, str) and resume):
        raise UsageError("--attach with -r needs a session id", hint="agentcli -r SESSION_ID --attach URL")
    ignored = sorted(k for k, v in values.items() if k not in ATTACH_FLAGS and v not in (None, False, []))
    if ignored:  # the warm server's settings run the turn: say so rather than drop them quietly
        spelled = {f.name: next((n for n in f.names if n.startswith("--")), f.names[0]) for f in ROOT_FLAGS}
        names = ", ".join(spelled.get(k, k) for k in ignored)
        sys.stderr.write(f"agentcli: with --attach the server's settings apply; ignored: {names}\n")
    prompt = _read_prompt(values.get("prompt")) if values.get("print_mode") else None
    return run_attached(values["attach"], values.get("token"), prompt, str(_cwd(values)), resume,
                        values.get("output_format") or "text")


ATTACH_FLAGS = frozenset({"attach", "token", "print_mode", "prompt", "cwd", "resume", "output_format"})


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
