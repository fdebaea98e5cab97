"""The built-in tools as the model, the policy and the front ends see them: name, description, input schema and
annotations, apart from the code that runs them (agentcli.tools.read, bash, …), so that a run that calls no tool
imports none of that code (the registry's `BuiltinTool`, issue 25). Plain data that imports nothing; each
implementation takes its text and schema from here (tests/tools/test_specs.py holds the two together)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class ToolSpec:
    """What the core reads off a built-in tool before running it. `timeout_s`: the tool's own bound, when it has
    one longer than the session's (agentcli.core.toolrun); None for every built-in tool today. A plain class, not
    a record: making a record class costs ~0.6 M instructions more at every start (valgrind)."""

    __slots__ = ("description", "destructive", "edits_files", "input_schema", "name", "read_only", "timeout_s")

    def __init__(self, name: str, description: str, input_schema: dict[str, Any], *, read_only: bool,
                 destructive: bool = False, edits_files: bool = False, timeout_s: float | None = None) -> None:
        self.name, self.description, self.input_schema = name, description, input_schema
        self.read_only, self.destructive, self.edits_files = read_only, destructive, edits_files
        self.timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"ToolSpec({self.name!r})"


MAX_LINE_CHARS = 2000  # a longer line is cut (agentcli.tools.text)
DEFAULT_LIMIT = 2000  # lines Read returns without a `limit`


READ_DESCRIPTION = f"""\
Read a text file from the local filesystem.

- `file_path` should be an absolute path; a relative path is taken from the shell's current directory.
- By default up to {DEFAULT_LIMIT} lines are returned from the start of the file. For long files pass
  `offset` (the 1-based line number to start at) and `limit` (how many lines) to read the part you need.
- Lines longer than {MAX_LINE_CHARS} characters are cut.
- The output is numbered like `cat -n`: spaces, the line number, a tab, then the line. The number and the tab
  are not part of the file — never include them in an Edit's `old_string`.
- Binary files are refused; to list a directory use Glob or `ls` through Bash.
- Read a file before you Edit or overwrite it with Write; both require it.
- You may read several files at once by calling Read in parallel."""

READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "minLength": 1, "description": "Absolute path of the file"},
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "1-based line number to start reading at (for long files)",
        },
        "limit": {"type": "integer", "minimum": 1, "description": "How many lines to read"},
    },
    "required": ["file_path"],
    "additionalProperties": False,
}


WRITE_DESCRIPTION = """\
Write a file to the local filesystem, replacing it if it exists.

- `file_path` should be an absolute path; missing parent directories are created.
- To overwrite an existing file you must have read it with Read in this conversation first; otherwise the
  call fails. For changes to part of a file, prefer Edit, which sends only the changed text.
- `content` is the complete new content of the file.
- Only create new files when the task needs them; do not write documentation files unless asked."""

WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "minLength": 1, "description": "Absolute path of the file to write"},
        "content": {"type": "string", "description": "The full content to write"},
    },
    "required": ["file_path", "content"],
    "additionalProperties": False,
}


EDIT_DESCRIPTION = """\
Replace exact text in a file.

- Read the file first in this conversation; Edit fails on a file you have not read or that changed since.
- `old_string` must match the file exactly, including indentation, tabs and blank lines. Copy it from the
  Read output WITHOUT the line-number prefix (spaces, number, tab).
- `old_string` must occur exactly once; include enough surrounding lines to make it unique, or set
  `replace_all` to true to change every occurrence (for example to rename a variable).
- `new_string` must differ from `old_string`. An empty `old_string` creates a new file with `new_string`.
- Prefer Edit to Write for changing part of an existing file."""

EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "minLength": 1, "description": "Absolute path of the file to edit"},
        "old_string": {"type": "string", "description": "The exact text to replace"},
        "new_string": {"type": "string", "description": "The text to put in its place"},
        "replace_all": {
            "type": "boolean",
            "default": False,
            "description": "Replace every occurrence of old_string (default false)",
        },
    },
    "required": ["file_path", "old_string", "new_string"],
    "additionalProperties": False,
}


DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000

BASH_DESCRIPTION = f"""\
Run a command in a bash shell and return its output (stdout and stderr interleaved) and exit code.

- The working directory persists between calls: `cd sub` in one call affects the next. It starts at the
  project root and is reset there if a command moves outside the project. Prefer absolute paths or a
  single `cd dir && …` over many cd calls.
- There is no terminal and stdin is closed: never run interactive commands (editors, pagers, `git rebase -i`,
  prompts). Pass flags such as `-y` / `--yes` / `--no-edit` instead.
- `timeout` is in milliseconds: default {DEFAULT_TIMEOUT_MS}, at most {MAX_TIMEOUT_MS}. On timeout the command
  and everything it started are killed.
- Long output is cut in the middle (the start and the end are kept); filter it (`| tail -50`, `grep`) when
  you only need part.
- Use Read, Edit, Write, Glob and Grep rather than cat, sed, echo >, find and grep for files.
- Chain dependent commands with `&&`; quote paths that contain spaces.
- `description`: a few words saying what the command does, shown to the user.
- `run_in_background: true` starts a long-running command (a server, a watcher) and returns its ID at once;
  read its output with BashOutput and stop it with KillShell. Do not use `&` for that."""

BASH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1, "description": "The command to run"},
        "timeout": {
            "type": "integer",
            "minimum": 1,
            "description": f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS})",
        },
        "description": {"type": "string", "description": "What the command does, in 5-10 words"},
        "run_in_background": {
            "type": "boolean",
            "description": "Start the command in the background and return at once; read it with BashOutput",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


GLOB_MAX_RESULTS = 100

GLOB_DESCRIPTION = f"""\
Find files whose path matches a glob pattern, such as `**/*.py` or `src/**/*.{{ts,tsx}}`.

- `*` matches within one directory level, `**` any number of levels, `{{a,b}}` either alternative.
- The pattern is matched against paths relative to `path` (default: the shell's current directory).
- Files ignored by .gitignore are skipped. Results are absolute paths, most recently modified first, at most
  {GLOB_MAX_RESULTS}.
- To search file contents use Grep. For open-ended searches that need several rounds, combine Glob and Grep."""

GLOB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "minLength": 1, "description": "The glob pattern to match"},
        "path": {
            "type": "string",
            "description": "Directory to search in (default: the current directory). Omit it rather "
            "than passing null or 'undefined'.",
        },
    },
    "required": ["pattern"],
    "additionalProperties": False,
}


MAX_FILES_SHOWN = 100

GREP_DESCRIPTION = f"""\
Search file contents with a regular expression (ripgrep syntax), honouring .gitignore.

- `pattern`: a regex, e.g. `def \\w+_handler` or `log.*Error`. Escape literal braces (`interface\\{{\\}}`).
- `path`: file or directory to search (default: the shell's current directory).
- `glob` filters files by name (`*.py`, `*.{{ts,tsx}}`); `type` by language (`py`, `js`, `rust`, `go` …).
- `output_mode`: `files_with_matches` (default; paths, most recently modified first, at most
  {MAX_FILES_SHOWN}), `content` (matching lines; `-n` line numbers on by default, `-A`/`-B`/`-C` context lines),
  or `count` (matches per file).
- `-i` ignores case; `multiline` lets `.` and patterns span lines; `head_limit` keeps the first N lines or entries.
- Use Grep rather than running grep or rg through Bash."""

_GREP_PROPS: dict[str, Any] = {
    "pattern": {"type": "string", "minLength": 1, "description": "Regular expression to search for"},
    "path": {"type": "string", "description": "File or directory to search (default: current directory)"},
    "glob": {"type": "string", "description": "Only files whose name matches this glob, e.g. '*.py'"},
    "type": {"type": "string", "description": "Only files of this type (rg --type), e.g. 'py', 'js'"},
    "output_mode": {
        "type": "string",
        "enum": ["content", "files_with_matches", "count"],
        "description": "What to return (default files_with_matches)",
    },
    "-i": {"type": "boolean", "description": "Case-insensitive search"},
    "-n": {"type": "boolean", "description": "Line numbers in content mode (default true)"},
    "-A": {"type": "integer", "minimum": 0, "description": "Lines of context after each match (content)"},
    "-B": {"type": "integer", "minimum": 0, "description": "Lines of context before each match (content)"},
    "-C": {"type": "integer", "minimum": 0, "description": "Lines of context around each match (content)"},
    "head_limit": {"type": "integer", "minimum": 1, "description": "Keep only the first N lines/entries"},
    "multiline": {"type": "boolean", "description": "Let patterns span lines; '.' matches newlines"},
}

GREP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": _GREP_PROPS,
    "required": ["pattern"],
    "additionalProperties": False,
}


BASH_OUTPUT_DESCRIPTION = (
    "Read the new output of a background shell started with Bash(run_in_background=true), with its status "
    "(running, exited with a code, killed). Each call returns only output produced since the previous call. "
    "`filter` (a regular expression) keeps only matching lines; the others are discarded."
)
BASH_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "bash_id": {"type": "string", "minLength": 1, "description": "The background shell's ID"},
        "filter": {"type": "string", "description": "Only return lines matching this regular expression"},
    },
    "required": ["bash_id"],
    "additionalProperties": False,
}

KILL_SHELL_DESCRIPTION = (
    "Stop a background shell started with Bash(run_in_background=true), with everything it started. "
    "Use it for servers or watchers you no longer need."
)
KILL_SHELL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"shell_id": {"type": "string", "minLength": 1, "description": "The shell's ID"}},
    "required": ["shell_id"],
    "additionalProperties": False,
}


EXIT_PLAN_DESCRIPTION = (
    "Call this when you are in plan mode and have finished planning: present your plan (markdown, concise, "
    "the steps you will take and the files you will change) for the user to approve. Do not call it to ask "
    "questions, and only after you have read what you need. After approval you may start making changes."
)
EXIT_PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"plan": {"type": "string", "minLength": 1, "description": "The plan, in markdown"}},
    "required": ["plan"],
    "additionalProperties": False,
}


TODO_STATUSES = ("pending", "in_progress", "completed")
TODO_DESCRIPTION = (
    "Keep a task list for work of 3 or more steps: send the whole updated list each time. Keep exactly one "
    "task in_progress while you work, mark it completed as soon as it is done, and add tasks you discover."
)
TODO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "description": "The updated todo list",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1},
                    "status": {"type": "string", "enum": list(TODO_STATUSES)},
                    "activeForm": {"type": "string", "minLength": 1},
                },
                "required": ["content", "status", "activeForm"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["todos"],
    "additionalProperties": False,
}


WEB_FETCH_DESCRIPTION = (
    "Fetch a web page (http/https) and read it as Markdown, with `prompt` saying what you want from it. "
    "Pages are cached for 15 minutes. Local and private addresses are refused unless the user allowed that "
    "host. Prefer it over curl in Bash."
)
WEB_FETCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "the full URL (http or https)"},
        "prompt": {"type": "string", "description": "what to find or extract in the page"},
    },
    "required": ["url", "prompt"],
    "additionalProperties": False,
}


WEB_SEARCH_DESCRIPTION = (
    "Search the web; returns titles, URLs and snippets (then WebFetch a page to read it). Optionally keep to "
    "allowed_domains or leave out blocked_domains. Cite the URLs you use."
)
WEB_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 2},
        "allowed_domains": {"type": "array", "items": {"type": "string"}},
        "blocked_domains": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["query"],
    "additionalProperties": False,
}


NOTEBOOK_EDIT_DESCRIPTION = (
    "Edit a Jupyter notebook (.ipynb) cell: replace its source (edit_mode 'replace', the default), insert a "
    "new cell after cell_id (or first, without cell_id; cell_type required), or delete it. Read the notebook "
    "first: Read shows each cell's id."
)
NOTEBOOK_EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "notebook_path": {"type": "string", "minLength": 1},
        "cell_id": {"type": "string"},
        "new_source": {"type": "string"},
        "cell_type": {"type": "string", "enum": ["code", "markdown"]},
        "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"]},
    },
    "required": ["notebook_path", "new_source"],
    "additionalProperties": False,
}


TASK_BASE_DESCRIPTION = (
    "Launch a subagent to handle a task on its own, with a fresh context: it gets only your `prompt`, works "
    "with its own tools, and returns one final report as this tool's result (the user does not see it: relay "
    "what matters). Use it for broad searches and self-contained work that would otherwise fill your context. "
    "Several Task calls in one reply run in parallel. With run_in_background the call returns an id at once; "
    "you are told when it finishes (TaskOutput shows progress, TaskStop stops it). Write a complete, specific "
    "prompt: the subagent knows nothing of this conversation."
)


TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "a short (3-5 word) description of the task"},
        "prompt": {"type": "string", "description": "the task for the subagent, complete and specific"},
        "subagent_type": {"type": "string", "description": "which kind of subagent to use"},
        "run_in_background": {"type": "boolean", "description": "return at once and run in the background"},
    },
    "required": ["description", "prompt", "subagent_type"],
    "additionalProperties": False,
}
TASK_ID_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"task_id": {"type": "string"}},
    "required": ["task_id"],
    "additionalProperties": False,
}


def describe(agents: Iterable[tuple[str, str]]) -> str:
    """The Task tool's description, listing the subagents it can start: (name, description) pairs."""
    listing = "\n".join(f"- {name}: {text}" for name, text in agents)
    return f"{TASK_BASE_DESCRIPTION}\n\nAvailable subagent_type values:\n{listing}"


TASK_OUTPUT_DESCRIPTION = "Show the status and the output so far of a background task (its id from Task)."
TASK_STOP_DESCRIPTION = "Stop a running background task (its id from Task)."


SPECS: dict[str, ToolSpec] = {s.name: s for s in (
    ToolSpec("Read", READ_DESCRIPTION, READ_SCHEMA, read_only=True),
    ToolSpec("Write", WRITE_DESCRIPTION, WRITE_SCHEMA, read_only=False, edits_files=True),
    ToolSpec("Edit", EDIT_DESCRIPTION, EDIT_SCHEMA, read_only=False, edits_files=True),
    ToolSpec("Bash", BASH_DESCRIPTION, BASH_SCHEMA, read_only=False, destructive=True),
    ToolSpec("Glob", GLOB_DESCRIPTION, GLOB_SCHEMA, read_only=True),
    ToolSpec("Grep", GREP_DESCRIPTION, GREP_SCHEMA, read_only=True),
    ToolSpec("BashOutput", BASH_OUTPUT_DESCRIPTION, BASH_OUTPUT_SCHEMA, read_only=True),
    # KillShell can only stop processes this session's (already permitted) Bash calls started.
    ToolSpec("KillShell", KILL_SHELL_DESCRIPTION, KILL_SHELL_SCHEMA, read_only=True),
    ToolSpec("ExitPlanMode", EXIT_PLAN_DESCRIPTION, EXIT_PLAN_SCHEMA, read_only=True),
    # TodoWrite changes nothing outside the session: it never asks.
    ToolSpec("TodoWrite", TODO_DESCRIPTION, TODO_SCHEMA, read_only=True),
    # WebFetch reaches the network: the policy asks, unless a WebFetch(domain:…) rule allows it.
    ToolSpec("WebFetch", WEB_FETCH_DESCRIPTION, WEB_FETCH_SCHEMA, read_only=False),
    ToolSpec("WebSearch", WEB_SEARCH_DESCRIPTION, WEB_SEARCH_SCHEMA, read_only=True),
    ToolSpec("NotebookEdit", NOTEBOOK_EDIT_DESCRIPTION, NOTEBOOK_EDIT_SCHEMA, read_only=False, edits_files=True),
    # Task changes nothing by itself (a child's own calls are checked by the same policy); TaskStop ends a
    # subagent this session started.
    ToolSpec("Task", describe([("general-purpose", "general research and multi-step work")]), TASK_SCHEMA,
             read_only=True),
    ToolSpec("TaskOutput", TASK_OUTPUT_DESCRIPTION, TASK_ID_SCHEMA, read_only=True),
    ToolSpec("TaskStop", TASK_STOP_DESCRIPTION, TASK_ID_SCHEMA, read_only=True),
)}


class FromSpec:
    """A built-in tool's implementation class takes its name, text, schema and annotations from its spec, so the
    two cannot differ: `class ReadTool(FromSpec, spec="Read")`."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    destructive: bool
    edits_files: bool
    timeout_s: float | None

    def __init_subclass__(cls, /, spec: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        found = SPECS[spec]
        cls.name, cls.description, cls.input_schema = found.name, found.description, found.input_schema
        cls.read_only, cls.destructive, cls.edits_files = found.read_only, found.destructive, found.edits_files
        cls.timeout_s = found.timeout_s
