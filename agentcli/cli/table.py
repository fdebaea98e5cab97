"""The command line as data: the one table of root flags, the subcommands, the examples and exit statuses that
`--help` shows. Read by the typer tree (agentcli.cli.app), the typer-free reader (agentcli.cli.entry.fast_values)
and shell completion (agentcli.cli.completion); it imports only agentcli.cli.flags and compat (standard library).

Subcommands (`agentcli sessions …`) are modules agentcli.commands.<name>, registered in `SUBCOMMANDS` and imported
only when named. Adding a root flag is one `flag(…)` line; adding a subcommand is one module and one line here.
"""

from __future__ import annotations

from agentcli.cli import compat as cli_compat
from agentcli.cli.flags import Flag, flag
from agentcli.modes import FLAG_MODES

SUBCOMMANDS: dict[str, str] = {
    "sessions": "list, show, tree, rename, fork, rewind, export, rm and repair stored sessions",
    "models": "list models (catalog for hosted providers, live probe for local servers)",
    "permissions": "list, add, rm and check permission rules; trust a project's shared settings",
    "presets": "list and show tool presets",
    "mcp": "add, list, get and remove MCP servers",
    "sandbox": "run a command under the configured sandbox; show what it allows",
    "doctor": "one screen for a bug report: sandbox, ripgrep, providers, trust",
    "hooks": "list the hooks in force, import them from Claude Code's settings",
    "plugin": "marketplaces and plugins (Claude Code's format): install, list, update, trust",
    "agents": "list subagent definitions (.claude/agents, .agentcli/agents, built-ins)",
    "usage": "tokens and cost over time, by day, project, model or provider",
    "acp": "serve the Agent Client Protocol on stdin/stdout (editors, ACP clients)",
    "serve": "serve sessions over HTTP (loopback, bearer token): prompts, SSE events, permissions",
    "completion": "print the shell completion script: bash, zsh or fish",
}

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
    flag("--permission-mode", choices=FLAG_MODES, panel=PERMS, help="how tool calls are allowed"),
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
