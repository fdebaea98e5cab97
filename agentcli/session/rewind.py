"""Rewind a session's files, conversation or both to a record, showing what will change first.

Files come back from the first checkpoint at or after the record (the tree as it was before the next tool
call that could change files). Files changed outside the agent since then — between a turn's end and the
next tool call, or after the last turn — are listed so the user is warned before they are overwritten.
A conversation rewind appends a `rewind` record whose parent is the target: later records leave the
active branch but stay in the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.errors import SessionError, SessionNotFoundError
from agentcli.llm.messages import Message
from agentcli.session.checkpoint import Change, ShadowGit, is_oid
from agentcli.session.reader import LoadedSession
from agentcli.session.records import CHECKPOINT, REWIND, Record, data_record, to_message
from agentcli.session.repair import repair
from agentcli.session.writer import SessionWriter

# What agentcli writes into the project for the user (settings.writer.keep_local_out_of_git): the personal
# settings and the `.gitignore` that keeps them out of git. They belong to the user, not to the session: a rewind
# that deleted the `.gitignore` (it appeared between two checkpoints) made the private file visible to git.
PRIVATE_FILES = frozenset({".agentcli/.gitignore", ".agentcli/settings.local.toml"})


@dataclass(slots=True)
class RewindPlan:
    """What a rewind to `target` would do. `changes` and `patch` go from the current tree to `tree`."""

    session_id: str
    target: Record
    tree: str | None
    current_tree: str | None
    changes: list[Change] = field(default_factory=list)
    patch: str = ""
    outside: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def target_id(self) -> str:
        return str(self.target["id"])


def plan_rewind(loaded: LoadedSession, to: str, shadow: ShadowGit | None) -> RewindPlan:
    """Work out a rewind to record `to` (id or unique prefix) on the session's active branch."""
    target = loaded.find(to)
    if target is None:
        raise SessionNotFoundError(f"no record {to!r} in session {loaded.session_id}")
    pos = next((i for i, r in enumerate(loaded.chain) if r is target), None)
    if pos is None:
        raise SessionError(f"record {to} is not on the session's current branch",
                           hint=f"fork from it instead: agentcli sessions fork {loaded.session_id} --at {to}")
    later = [r for r in loaded.chain[pos:] if _tree(r)]
    plan = RewindPlan(loaded.session_id, target, _tree(later[0]) if later else None, None)
    if shadow is None or plan.tree is None:
        plan.notes.append("no file checkpoint after this record: files are left as they are")
        return plan
    current = shadow.snapshot().tree
    plan.current_tree = current
    every = shadow.changes(current, plan.tree)
    plan.changes = [c for c in every if c.path not in PRIVATE_FILES]
    if len(plan.changes) < len(every):
        plan.notes.append("kept as they are: agentcli's private project settings and the .gitignore that keeps "
                          "them out of git")
    plan.patch = shadow.patch(current, plan.tree, PRIVATE_FILES) if plan.changes else ""
    touched = {c.path for c in plan.changes}
    plan.outside = sorted(_outside(shadow, later, current) & touched)
    return plan


def _outside(shadow: ShadowGit, checkpoints: list[Record], current: str) -> set[str]:
    """Files that changed while no tool was running: from a known state (turn end, rewind) to the next
    checkpoint, and from the last known state to now."""
    names: set[str] = set()
    known: str | None = None
    for rec in checkpoints:
        tree = _tree(rec)
        if known is not None and tree is not None:
            names |= shadow.changed_names(known, tree)
        known = tree if rec["data"].get("phase") != "before_tool" else None
    if known is not None:
        names |= shadow.changed_names(known, current)
    return names


def apply_rewind(writer: SessionWriter, loaded: LoadedSession, plan: RewindPlan, *, files: bool,
                 conversation: bool) -> list[Message]:
    """Restore what was asked and record it; return the history to continue from."""
    if files and plan.tree is not None and plan.changes and writer.shadow is not None:
        writer.shadow.restore(plan.tree, plan.changes)
    data = {"to": plan.target_id, "files": files and plan.tree is not None, "conversation": conversation,
            "tree": plan.tree if files else None, "changed": [f"{c.status} {c.path}" for c in plan.changes]
            if files else []}
    parent = plan.target_id if conversation else writer.leaf_id
    writer.append(data_record(REWIND, data, parent))
    if files and plan.tree is not None:
        writer.snapshot_now("after_rewind")
    chain = loaded.chain
    if conversation:
        chain = chain[: next(i for i, r in enumerate(chain) if r is plan.target) + 1]
    return repair([m for m in (to_message(r) for r in chain) if m is not None]).messages


def _tree(rec: Record) -> str | None:
    if rec.get("type") != CHECKPOINT or not isinstance(rec.get("data"), dict):
        return None
    tree = rec["data"].get("tree")
    return tree if is_oid(tree) else None  # anything else is no checkpoint: it never reaches git


def describe(plan: RewindPlan, heading: str | None = None) -> str:
    """A short human summary: the per-file list and warnings (the patch is shown separately). `heading`
    replaces the first line, which names the session and record by id (what `agentcli sessions rewind` takes)."""
    lines = [heading or f"rewind {plan.session_id} to record {plan.target_id}"]
    lines += [f"  note: {n}" for n in plan.notes]
    verbs = {"A": "restore", "D": "delete", "M": "revert", "T": "revert"}
    lines += [f"  {verbs.get(c.status, c.status)} {c.path}" for c in plan.changes]
    if plan.tree is not None and not plan.changes:
        lines.append("  files already match the checkpoint")
    if plan.outside:
        lines.append("  warning: changed outside the agent since the checkpoint (will be overwritten):")
        lines += [f"    {p}" for p in plan.outside]
    return "\n".join(lines)


def project_root_of(loaded: LoadedSession) -> Path:
    return Path(str(loaded.header.get("project_root") or loaded.header.get("cwd") or "."))


def rewind_stored(directory: Path, session_id: str, to: str, *, files: bool, conversation: bool,
                  confirm: Callable[[str, str], bool], secrets: tuple[str, ...] = (),
                  project: Path | None = None) -> bool:
    """Rewind a stored session (not in use): plan, let `confirm(summary, patch)` decide, apply.
    `project`: the project it is run for; its files only are rewound (default: whichever project the sessions
    directory is for). Returns whether anything was applied."""
    from agentcli.redact import Redactor
    from agentcli.session import layout
    from agentcli.session.lock import SessionLock
    from agentcli.session.reader import load
    from agentcli.session.store import shadow_for

    lock = SessionLock(layout.lock_file(directory, session_id), session_id).acquire()
    try:
        loaded = load(directory, session_id)
        root = project_root_of(loaded).resolve()
        # (Two paths can share a sessions directory: `my proj` and `my-proj` have one slug.)
        if files and (root != project.resolve() if project is not None else layout.sessions_dir(root) != directory):
            # The header is only data: a copied or forged file naming another directory must not make us
            # snapshot, delete or overwrite that directory's files.
            raise SessionError(f"session {session_id} names another project ({root}): its files are not rewound "
                               "from here", hint="rewind only its conversation with --conversation")
        shadow = shadow_for(directory, session_id, root, secrets) if files else None
        plan = plan_rewind(loaded, to, shadow)
        if not confirm(describe(plan), plan.patch if files else ""):
            return False
        with SessionWriter(loaded.path, session_id, redactor=Redactor(secrets), leaf_id=loaded.leaf_id,
                           shadow=shadow) as writer:
            apply_rewind(writer, loaded, plan, files=files, conversation=conversation)
        return True
    finally:
        lock.release()
