"""`agentcli sessions …`: list, show, rm, rename, export, tree, doctor, fork, rewind.

Every subcommand works on the sessions of one project (`-C DIR`, default: the project around the current
directory) and reads the files directly: nothing here needs a provider.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agentcli import paths
from agentcli.commands import reporting_errors
from agentcli.errors import AgentCliError, SessionError, SessionNotFoundError, UsageError
from agentcli.session import layout
from agentcli.session.index import SessionSummary, list_sessions
from agentcli.session.reader import LoadedSession


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace, Path], int] = ns.handler
    start = Path(ns.directory) if ns.directory else Path.cwd()
    return reporting_errors(lambda: handler(ns, layout.sessions_dir(paths.find_project_root(start))))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentcli sessions", description="Manage this project's stored sessions.")
    p.add_argument("-C", "--directory", help="the project directory (default: the current one)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    a = sub.add_parser("list", help="sessions of this project, newest first")
    a.add_argument("--json", action="store_true", help="one JSON array")
    a.add_argument("-n", "--limit", type=int, default=0, help="show at most N")
    a.add_argument("--all", action="store_true", help="also sessions with no reply (e.g. the server was down)")
    a.set_defaults(handler=_list)
    a = sub.add_parser("show", help="the records of a session's current branch")
    a.add_argument("id", help="session id, unique prefix or name")
    a.add_argument("--json", action="store_true", help="the records as JSON lines")
    a.add_argument("--sidechain", metavar="TOOL_USE_ID", help="the transcript of the subagent that Task call ran")
    a.set_defaults(handler=_show)
    a = sub.add_parser("rm", help="delete sessions")
    a.add_argument("ids", nargs="+")
    a.add_argument("--with-forks", action="store_true", help="also delete the sessions forked from them")
    a.set_defaults(handler=_rm)
    a = sub.add_parser("rename", help="name a session (usable with --resume NAME)")
    a.add_argument("id")
    a.add_argument("name")
    a.set_defaults(handler=_rename)
    a = sub.add_parser("export", help="print a session as Markdown or JSON")
    a.add_argument("id")
    a.add_argument("format", nargs="?", choices=("markdown", "json"), default="markdown")
    a.add_argument("-o", "--output", help="write to this file instead of stdout")
    a.set_defaults(handler=_export)
    a = sub.add_parser("tree", help="this project's sessions and the forks between them")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=_tree)
    a = sub.add_parser("doctor", help="check every session of this project and repair what can be")
    a.add_argument("--dry-run", action="store_true", help="only check")
    a.set_defaults(handler=_doctor)
    a = sub.add_parser("fork", help="start a new session branching from any record (assistant ones too)")
    a.add_argument("id")
    a.add_argument("--at", metavar="RECORD", help="record id or prefix (default: the last record)")
    a.add_argument("-n", "--name", help="a name for the new session")
    a.set_defaults(handler=_fork)
    a = sub.add_parser("rewind", help="restore files and/or the conversation to a record")
    a.add_argument("id")
    a.add_argument("--to", required=True, metavar="RECORD", help="record id or prefix")
    mode = a.add_mutually_exclusive_group()
    mode.add_argument("--files", dest="mode", action="store_const", const="files")
    mode.add_argument("--conversation", dest="mode", action="store_const", const="conversation")
    mode.add_argument("--both", dest="mode", action="store_const", const="both")
    a.add_argument("-y", "--yes", action="store_true", help="apply without asking")
    a.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")
    a.set_defaults(handler=_rewind, mode="both")
    return p


def _resolve(directory: Path, ref: str) -> str:
    from agentcli.session.store import resolve_session

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


def _list(ns: argparse.Namespace, directory: Path) -> int:
    rows = [s for s in list_sessions(directory) if ns.all or s.worth_listing]
    if ns.limit:
        rows = rows[: ns.limit]
    if ns.json:
        keys = ("id", "name", "created", "model", "provider", "git_branch", "turns", "first_prompt",
                "parent_session", "fork_record")
        body = [{**{k: getattr(s, k) for k in keys}, "title": s.title, "updated": s.updated} for s in rows]
        sys.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not rows:
        sys.stdout.write("no sessions in this project\n")
        return 0
    lines = [f"{'ID':<10} {'AGE':<9} {'TURNS':>5} {'MODEL':<24} {'BRANCH':<14} TITLE"]
    lines += [f"{s.id[:8]:<10} {_age(s.updated):<9} {s.turns:>5} {s.model[:24]:<24} "
              f"{(s.git_branch or '-')[:14]:<14} {s.title}" for s in rows]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _show(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.session.reader import load
    from agentcli.session.records import encode

    sid = _resolve(directory, ns.id)
    loaded = _sidechain(directory, sid, ns.sidechain) if ns.sidechain else load(directory, sid)
    if ns.json:
        sys.stdout.write("".join(encode(r).decode() for r in [loaded.header, *loaded.chain]))
        return 0
    h = loaded.header
    out = [f"session {loaded.session_id}  {h.get('provider', '')}/{h.get('model', '')}  {h.get('created', '')}"]
    if h.get("parent_session"):
        out.append(f"forked from {h['parent_session']} at {h.get('fork_record')}")
    if h.get("sidechain_of"):
        side = h["sidechain_of"]
        out.append(f"subagent {side.get('agent')} of session {side.get('session')}, Task {side.get('tool_use_id')}")
    out += [f"  {_one_line(r)}" for r in loaded.chain]
    out += [f"problem: {p}" for p in loaded.problems]
    from agentcli.session.store import sidechains

    if not ns.sidechain:
        out += [f"subagent transcript: {s.header['sidechain_of'].get('agent')} (--sidechain "
                f"{s.header['sidechain_of'].get('tool_use_id')})" for s in sidechains(directory, sid)]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _sidechain(directory: Path, sid: str, tool_use_id: str) -> LoadedSession:
    from agentcli.session.store import sidechains

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


def _rm(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.session.lock import is_locked

    summaries = list_sessions(directory)
    ids = [_resolve(directory, ref) for ref in ns.ids]
    children = [s.id for s in summaries if s.parent_session in ids and s.id not in ids]
    if children and not ns.with_forks:
        raise UsageError(f"{len(children)} session(s) were forked from it and read its history: "
                         + ", ".join(c[:8] for c in children), hint="add --with-forks to delete them too")
    for sid in _with_descendants(ids, summaries) if ns.with_forks else ids:
        if is_locked(layout.lock_file(directory, sid)):
            raise SessionError(f"session {sid} is in use", code="session_locked")
        for path in (layout.session_file(directory, sid), layout.lock_file(directory, sid),
                     layout.checkpoint_index(directory, sid)):
            path.unlink(missing_ok=True)
        sys.stdout.write(f"removed {sid}\n")
    return 0


def _with_descendants(ids: list[str], summaries: list[SessionSummary]) -> list[str]:
    out = list(ids)
    for sid in out:
        out += [s.id for s in summaries if s.parent_session == sid and s.id not in out]
    return out


def _rename(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.redact import Redactor
    from agentcli.session.lock import SessionLock
    from agentcli.session.reader import load
    from agentcli.session.writer import SessionWriter

    sid = _resolve(directory, ns.id)
    loaded = load(directory, sid)
    lock = SessionLock(layout.lock_file(directory, sid), sid).acquire()
    with SessionWriter(loaded.path, sid, redactor=Redactor(_secrets()), leaf_id=loaded.leaf_id, lock=lock) as w:
        w.record("rename", {"name": ns.name})
    sys.stdout.write(f"{sid} is now {ns.name!r}\n")
    return 0


def _export(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.session.export import to_json, to_markdown
    from agentcli.session.reader import load

    loaded = load(directory, _resolve(directory, ns.id))
    text = to_json(loaded) if ns.format == "json" else to_markdown(loaded)
    if ns.output:
        Path(ns.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _tree(ns: argparse.Namespace, directory: Path) -> int:
    rows = sorted(list_sessions(directory), key=lambda s: s.created)
    ids = {s.id for s in rows}
    kids: dict[str | None, list[SessionSummary]] = {}
    for s in rows:
        kids.setdefault(s.parent_session if s.parent_session in ids else None, []).append(s)
    if ns.json:
        def node(s: SessionSummary) -> dict[str, object]:
            return {"id": s.id, "title": s.title, "fork_record": s.fork_record, "turns": s.turns,
                    "forks": [node(k) for k in kids.get(s.id, [])]}
        sys.stdout.write(json.dumps([node(s) for s in kids.get(None, [])], ensure_ascii=False, indent=2) + "\n")
        return 0
    out: list[str] = []

    def walk(s: SessionSummary, depth: int) -> None:
        at = f" (from {s.parent_session[:8]} at {str(s.fork_record)[:12]})" if s.parent_session else ""
        out.append(f"{'  ' * depth}{'└─ ' if depth else ''}{s.id[:8]}  {s.turns:>3} turns  {s.title}{at}")
        for k in kids.get(s.id, []):
            walk(k, depth + 1)

    for s in kids.get(None, []):
        walk(s, 0)
    sys.stdout.write("\n".join(out or ["no sessions in this project"]) + "\n")
    return 0


def _doctor(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.session.doctor import doctor

    if not directory.is_dir():
        sys.stdout.write("no sessions in this project\n")
        return 0
    findings = doctor(directory, fix=not ns.dry_run)
    for f in findings:
        state = "ok" if f.ok and not f.fixed else ("fixed" if f.ok else "PROBLEM")
        sys.stdout.write(f"{state:<8} {f.session_id}\n")
        sys.stdout.write("".join(f"         fixed: {x}\n" for x in f.fixed))
        sys.stdout.write("".join(f"         problem: {x}\n" for x in f.problems))
    bad = sum(1 for f in findings if not f.ok)
    sys.stdout.write(f"{len(findings)} session(s) checked, {bad} with problems left\n")
    return 1 if bad else 0


def _fork(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.session.store import fork

    sid = fork(directory, _resolve(directory, ns.id), ns.at, name=ns.name)
    sys.stdout.write(f"{sid}\n")
    sys.stderr.write(f"continue it with: agentcli --resume {sid}\n")
    return 0


def _rewind(ns: argparse.Namespace, directory: Path) -> int:
    from agentcli.session.rewind import rewind_stored

    sid = _resolve(directory, ns.id)
    files, conversation = ns.mode in ("files", "both"), ns.mode in ("conversation", "both")

    def confirm(summary: str, patch: str) -> bool:
        sys.stdout.write(patch + ("\n" if patch and not patch.endswith("\n") else "") + summary + "\n")
        if ns.dry_run:
            return False
        if ns.yes:
            return True
        if not sys.stdin.isatty():
            raise UsageError("rewind needs confirmation", hint="add --yes (or --dry-run to only look)")
        return input("apply? [y/N] ").strip().lower() in ("y", "yes")

    done = rewind_stored(directory, sid, ns.to, files=files, conversation=conversation, confirm=confirm,
                         secrets=_secrets())
    sys.stdout.write("rewound\n" if done else "nothing changed\n")
    return 0
