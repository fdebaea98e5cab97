"""`agentcli sessions …`: list, show, rm, rename, export, tree, doctor, fork, rewind.

Every subcommand works on the sessions of one project (`-C DIR`, default: the project around the current
directory) and reads the files directly: nothing here needs a provider.
"""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from agentcli.commands import DirectoryOption, JsonFlag, entry, new_app, project_root, reporting_errors
from agentcli.errors import AgentCliError, SessionError, SessionNotFoundError, UsageError
from agentcli.session import layout
from agentcli.session.index import SessionSummary, list_sessions

if TYPE_CHECKING:
    from agentcli.session.reader import LoadedSession

app = new_app("Manage this project's stored sessions.")
SessionArg = Annotated[str, typer.Argument(metavar="SESSION", help="session id, unique prefix or name")]
RewindMode = Literal["files", "conversation", "both"]


def _visible(text: str) -> str:
    """A transcript, a file's diff or a repository's `.git/HEAD` is not ours: its escape sequences and bidi
    controls are shown, not obeyed."""
    from agentcli.visible import inert

    return inert(text)


def _flag(*names: str, help_text: str) -> typer.models.OptionInfo:
    option: typer.models.OptionInfo = typer.Option(*names, metavar="", help=help_text)
    return option


@app.callback()
def _options(ctx: typer.Context, directory: DirectoryOption = None) -> None:
    root = project_root(directory)
    ctx.obj = layout.sessions_dir(root)
    ctx.meta["agentcli.project_root"] = root
    if isinstance(sys.stdout, io.TextIOWrapper):
        # A transcript may hold a lone surrogate (a stream's "\ud800" decodes to one): printed as its escape,
        # which is also its JSON spelling, instead of failing to encode.
        sys.stdout.reconfigure(errors="backslashreplace")


@app.command("list", help="sessions of this project, newest first")
def list_(ctx: typer.Context, as_json: Annotated[bool, _flag("--json", help_text="one JSON array")] = False,
          limit: Annotated[int, typer.Option("-n", "--limit", metavar="N", help="show at most N (0: all)")] = 0,
          show_all: Annotated[bool, _flag("--all", help_text="also sessions with no reply (e.g. the server was "
                                                             "down)")] = False) -> int:
    return reporting_errors(lambda: _list(ctx.obj, as_json, limit, show_all))


@app.command("show", help="the records of a session's current branch")
def show(ctx: typer.Context, ref: SessionArg,
         as_json: Annotated[bool, _flag("--json", help_text="the records as JSON lines")] = False,
         sidechain: Annotated[str | None, typer.Option(
             metavar="TOOL_USE_ID", show_default=False,
             help="the transcript of the subagent that Task call ran")] = None) -> int:
    return reporting_errors(lambda: _show(ctx.obj, ref, as_json, sidechain))


@app.command("rm", help="delete sessions")
def rm(ctx: typer.Context, refs: Annotated[list[str], typer.Argument(metavar="SESSION...", help="sessions")],
       with_forks: Annotated[bool, _flag("--with-forks", help_text="also delete the sessions forked from them")
                             ] = False) -> int:
    return reporting_errors(lambda: _rm(ctx.obj, refs, with_forks))


@app.command("rename", help="name a session (usable with --resume NAME)")
def rename(ctx: typer.Context, ref: SessionArg, name: Annotated[str, typer.Argument(metavar="NAME")]) -> int:
    return reporting_errors(lambda: _rename(ctx.obj, ref, name))


@app.command("export", help="print a session as Markdown or JSON")
def export(ctx: typer.Context, ref: SessionArg,
           fmt: Annotated[Literal["markdown", "json"], typer.Argument(metavar="FORMAT")] = "markdown",
           output: Annotated[str | None, typer.Option("-o", "--output", metavar="FILE", show_default=False,
                                                      help="write to this file instead of stdout")] = None) -> int:
    return reporting_errors(lambda: _export(ctx.obj, ref, fmt, output))


@app.command("tree", help="this project's sessions and the forks between them")
def tree(ctx: typer.Context, as_json: JsonFlag = False) -> int:
    return reporting_errors(lambda: _tree(ctx.obj, as_json))


@app.command("doctor", help="check every session of this project and repair what can be")
def doctor_(ctx: typer.Context, dry_run: Annotated[bool, _flag("--dry-run", help_text="only check")] = False) -> int:
    return reporting_errors(lambda: _doctor(ctx.obj, dry_run))


@app.command("fork", help="start a new session branching from any record (assistant ones too)")
def fork_(ctx: typer.Context, ref: SessionArg,
          at: Annotated[str | None, typer.Option(metavar="RECORD", show_default=False,
                                                 help="record id or prefix (default: the last record)")] = None,
          name: Annotated[str | None, typer.Option("-n", "--name", metavar="NAME", show_default=False,
                                                   help="a name for the new session")] = None) -> int:
    return reporting_errors(lambda: _fork(ctx.obj, ref, at, name))


@app.command("rewind", help="restore files and/or the conversation to a record")
def rewind(ctx: typer.Context, ref: SessionArg,
           to: Annotated[str, typer.Option(metavar="RECORD", help="record id or prefix")],
           files: Annotated[bool, _flag("--files", help_text="only the files")] = False,
           conversation: Annotated[bool, _flag("--conversation", help_text="only the conversation")] = False,
           both: Annotated[bool, _flag("--both", help_text="files and conversation (the default)")] = False,
           yes: Annotated[bool, _flag("-y", "--yes", help_text="apply without asking")] = False,
           dry_run: Annotated[bool, _flag("--dry-run", help_text="show the diff, change nothing")] = False) -> int:
    modes: tuple[tuple[RewindMode, bool], ...] = (("files", files), ("conversation", conversation), ("both", both))
    chosen = [m for m, on in modes if on]
    if len(chosen) > 1:
        raise typer.BadParameter("choose one of --files, --conversation, --both", param_hint="--" + chosen[1])
    mode = chosen[0] if chosen else "both"
    project = ctx.meta["agentcli.project_root"]
    return reporting_errors(lambda: _rewind(ctx.obj, ref, to, mode, yes=yes, dry_run=dry_run, project=project))


main = entry(app, "sessions")


def _resolve(directory: Path, ref: str) -> str:
    from agentcli.session.resumable import resolve_session

    return resolve_session(directory, ref)


def _secrets() -> tuple[str, ...]:
    """The secrets agentcli knows of (env keys, keys in config), so nothing written here can hold one."""
    from agentcli.settings.config import load_settings

    try:
        return load_settings(Path.cwd(), {}).secrets
    except AgentCliError:
        return ()


def _age(ts: float) -> str:
    d = max(0.0, time.time() - ts)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if d >= size:
            return f"{int(d // size)}{unit} ago"
    return "just now"


def _list(directory: Path, as_json: bool, limit: int, show_all: bool) -> int:
    rows = [s for s in list_sessions(directory) if show_all or s.worth_listing]
    if limit:
        rows = rows[:limit]
    if as_json:
        keys = ("id", "name", "created", "model", "git_branch", "turns", "first_prompt", "parent_session",
                "fork_record")
        body = [{**{k: getattr(s, k) for k in keys}, "provider": s.shown_provider, "title": s.title,
                 "updated": s.updated} for s in rows]
        sys.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not rows:
        sys.stdout.write("no sessions in this project\n")
        return 0
    wide = max(len("MODEL"), *(len(s.model) for s in rows))  # whole names: `…-7B-Instruct-Q4_K_M` cut said nothing
    lines = [f"{'ID':<10} {'AGE':<9} {'TURNS':>5} {'MODEL':<{wide}} {'BRANCH':<14} TITLE"]
    lines += [f"{s.id[:8]:<10} {_age(s.updated):<9} {s.turns:>5} {s.model:<{wide}} "
              f"{(s.git_branch or '-')[:14]:<14} {s.title}" for s in rows]
    sys.stdout.write(_visible("\n".join(lines) + "\n"))
    return 0


def _show(directory: Path, ref: str, as_json: bool, sidechain: str | None) -> int:
    from agentcli.session.reader import load
    from agentcli.session.records import encode

    sid = _resolve(directory, ref)
    loaded = _sidechain(directory, sid, sidechain) if sidechain else load(directory, sid)
    if as_json:
        sys.stdout.write("".join(encode(r).decode() for r in [loaded.header, *loaded.chain]))
        return 0
    h = loaded.header
    shown = h.get("provider_label") or h.get("provider", "")
    out = [f"session {loaded.session_id}  {shown}/{h.get('model', '')}  {h.get('created', '')}"]
    if h.get("parent_session"):
        out.append(f"forked from {h['parent_session']} at {h.get('fork_record')}")
    if h.get("sidechain_of"):
        side = h["sidechain_of"]
        out.append(f"subagent {side.get('agent')} of session {side.get('session')}, Task {side.get('tool_use_id')}")
    out += [f"  {_one_line(r)}" for r in loaded.chain]
    out += [f"problem: {p}" for p in loaded.problems]
    from agentcli.session.resumable import sidechains

    if not sidechain:
        sides = [s.header.get("sidechain_of") or {} for s in sidechains(directory, sid)]  # {}: a damaged header
        out += [f"subagent transcript: {side.get('agent')} (--sidechain {side.get('tool_use_id')})" for side in sides]
    sys.stdout.write(_visible("\n".join(out) + "\n"))
    return 0


def _sidechain(directory: Path, sid: str, tool_use_id: str) -> LoadedSession:
    from agentcli.session.resumable import sidechains

    for side in sidechains(directory, sid):
        if side.header.get("sidechain_of", {}).get("tool_use_id") == tool_use_id:
            return side
    raise SessionNotFoundError(f"session {sid} has no subagent transcript for Task {tool_use_id!r}",
                               hint=f"agentcli sessions show {sid} lists them")


def _one_line(rec: dict[str, object]) -> str:
    from agentcli.session.records import to_message

    rid, kind = str(rec.get("id", ""))[:12], str(rec.get("type"))
    msg = to_message(rec)
    if msg is not None:
        parts = [msg.text.replace("\n", " ")[:70]] if msg.text else []
        parts += [f"{u.name}({json.dumps(u.input, ensure_ascii=False)[:40]})" for u in msg.tool_uses]
        results = [b for b in msg.content if getattr(b, "tool_use_id", None)]
        parts += [f"[{len(results)} tool result(s)]"] if results else []
        return f"{rid}  {msg.role:<9} {' '.join(parts)}"
    data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
    assert isinstance(data, dict)
    detail = " ".join(f"{k}={v}" for k, v in data.items() if isinstance(v, str | int | bool))[:70]
    return f"{rid}  {kind:<9} {detail}"


def _rm(directory: Path, refs: list[str], with_forks: bool) -> int:
    import shutil

    from agentcli.session.lock import is_locked
    from agentcli.session.resumable import sidechain_dir

    summaries = list_sessions(directory)
    ids = [_resolve(directory, ref) for ref in refs]
    children = [s.id for s in summaries if s.parent_session in ids and s.id not in ids]
    if children and not with_forks:
        raise UsageError(f"{len(children)} session(s) were forked from it and read its history: "
                         + ", ".join(c[:8] for c in children), hint="add --with-forks to delete them too")
    for sid in _with_descendants(ids, summaries) if with_forks else ids:
        if is_locked(layout.lock_file(directory, sid)):
            raise SessionError(f"session {sid} is in use", code="session_locked")
        for path in (layout.session_file(directory, sid), layout.lock_file(directory, sid),
                     layout.checkpoint_index(directory, sid)):
            path.unlink(missing_ok=True)
        shutil.rmtree(sidechain_dir(directory, sid).parent, ignore_errors=True)  # its subagents' transcripts
        sys.stdout.write(f"removed {sid}\n")
    return 0


def _with_descendants(ids: list[str], summaries: list[SessionSummary]) -> list[str]:
    out = list(ids)
    for sid in out:
        out += [s.id for s in summaries if s.parent_session == sid and s.id not in out]
    return out


def _rename(directory: Path, ref: str, name: str) -> int:
    from agentcli.redact import Redactor
    from agentcli.session.lock import SessionLock
    from agentcli.session.reader import load
    from agentcli.session.writer import SessionWriter

    sid = _resolve(directory, ref)
    lock = SessionLock(layout.lock_file(directory, sid), sid).acquire()
    try:
        loaded = load(directory, sid)  # read under the lock: its last record is the one the rename follows
    except BaseException:
        lock.release()
        raise
    with SessionWriter(loaded.path, sid, redactor=Redactor(_secrets()), leaf_id=loaded.leaf_id, lock=lock) as w:
        w.record("rename", {"name": name})
    sys.stdout.write(f"{sid} is now {name!r}\n")
    return 0


def _export(directory: Path, ref: str, fmt: str, output: str | None) -> int:
    from agentcli.session.export import to_json, to_markdown
    from agentcli.session.reader import load

    loaded = load(directory, _resolve(directory, ref))
    text = to_json(loaded) if fmt == "json" else to_markdown(loaded)
    if output:
        Path(output).write_text(text, encoding="utf-8", errors="backslashreplace")
    else:
        sys.stdout.write(text)
    return 0


def _tree(directory: Path, as_json: bool) -> int:
    rows = sorted(list_sessions(directory), key=lambda s: s.created)
    ids = {s.id for s in rows}
    kids: dict[str | None, list[SessionSummary]] = {}
    for s in rows:
        kids.setdefault(s.parent_session if s.parent_session in ids else None, []).append(s)
    if as_json:
        def node(s: SessionSummary) -> dict[str, object]:
            return {"id": s.id, "title": s.title, "fork_record": s.fork_record, "turns": s.turns,
                    "forks": [node(k) for k in kids.get(s.id, [])]}
        sys.stdout.write(json.dumps([node(s) for s in kids.get(None, [])], ensure_ascii=False, indent=2) + "\n")
        return 0
    out: list[str] = []

    def walk(s: SessionSummary, depth: int) -> None:
        at = f" (from {s.parent_session[:8]} at {str(s.fork_record)[:12]})" if s.parent_session else ""
        turns = f"{s.turns:>3} turn{'' if s.turns == 1 else 's'}"
        out.append(f"{'  ' * depth}{'└─ ' if depth else ''}{s.id[:8]}  {turns:<9}  {s.title}{at}")
        for k in kids.get(s.id, []):
            walk(k, depth + 1)

    for s in kids.get(None, []):
        walk(s, 0)
    sys.stdout.write(_visible("\n".join(out or ["no sessions in this project"]) + "\n"))
    return 0


def _doctor(directory: Path, dry_run: bool) -> int:
    from agentcli.session.doctor import doctor

    if not directory.is_dir():
        sys.stdout.write("no sessions in this project\n")
        return 0
    findings = doctor(directory, fix=not dry_run)
    for f in findings:
        state = "ok" if f.ok and not f.fixed else ("fixed" if f.ok else "PROBLEM")
        sys.stdout.write(f"{state:<8} {f.session_id}\n")
        sys.stdout.write("".join(f"         fixed: {x}\n" for x in f.fixed))
        sys.stdout.write("".join(f"         problem: {x}\n" for x in f.problems))
    bad = sum(1 for f in findings if not f.ok)
    sys.stdout.write(f"{len(findings)} session(s) checked, {bad} with problems left\n")
    return 1 if bad else 0


def _fork(directory: Path, ref: str, at: str | None, name: str | None) -> int:
    from agentcli.session.store import fork

    sid = fork(directory, _resolve(directory, ref), at, name=name)
    sys.stdout.write(f"{sid}\n")
    sys.stderr.write(f"continue it with: agentcli --resume {sid}\n")
    return 0


def _rewind(directory: Path, ref: str, to: str, mode: RewindMode, *, yes: bool, dry_run: bool,
            project: Path) -> int:
    from agentcli.session.rewind import rewind_stored

    sid = _resolve(directory, ref)
    files, conversation = mode in ("files", "both"), mode in ("conversation", "both")

    def confirm(summary: str, patch: str) -> bool:
        sys.stdout.write(_visible(patch + ("\n" if patch and not patch.endswith("\n") else "") + summary + "\n"))
        if dry_run:
            return False
        if yes:
            return True
        if not sys.stdin.isatty():
            raise UsageError("rewind needs confirmation", hint="add --yes (or --dry-run to only look)")
        return input("apply? [y/N] ").strip().lower() in ("y", "yes")

    done = rewind_stored(directory, sid, to, files=files, conversation=conversation, confirm=confirm,
                         secrets=_secrets(), project=project)
    sys.stdout.write("rewound\n" if done else "nothing changed\n")
    return 0
