"""Checkpoints of the working tree in a shadow git object store.

`git` runs with `GIT_DIR=<project sessions dir>/shadow.git`, `GIT_WORK_TREE=<project>` and a per-session
`GIT_INDEX_FILE`, so it works in directories that are not git repositories and never touches the user's own
`.git`. `.gitignore` files are respected; files over `max_file_bytes` and likely secret files (`.env`, keys)
are left out. A snapshot is a tree id: only changed files are hashed, thanks to the index's stat cache.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.errors import SessionError

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_CHANGED_FILES = 50_000
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"
_EXCLUDES = (".env", ".env.*", "!.env.example", "!.env.sample", "*.pem", "*.key", "id_rsa*", "id_ed25519*",
             "id_ecdsa*", ".netrc", ".npmrc", ".pypirc",
             # Caches and installed dependencies: large, rebuildable, and never what a rewind is for.
             "node_modules/", ".venv/", "__pycache__/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".tox/")
_CONFIG = (("core.bare", "false"), ("core.autocrlf", "false"), ("core.safecrlf", "false"),
           ("core.symlinks", "true"), ("core.untrackedCache", "true"), ("core.fsmonitor", "false"),
           ("core.quotePath", "false"), ("gc.auto", "0"), ("gc.pruneExpire", "never"), ("diff.renames", "false"))


class CheckpointError(SessionError):
    code = "checkpoint_failed"


@dataclass(frozen=True, slots=True)
class Snapshot:
    tree: str
    hashed: int  # files re-read for this snapshot
    skipped: tuple[str, ...] = ()  # too large, or holding a secret


@dataclass(frozen=True, slots=True)
class Change:
    status: str  # A (only in the target: will be created) | D (will be deleted) | M | T (type change)
    path: str


@dataclass(slots=True)
class ShadowGit:
    store: Path
    work_tree: Path
    index: Path
    max_file_bytes: int = MAX_FILE_BYTES
    extra_excludes: tuple[str, ...] = field(default=())
    secrets: tuple[bytes, ...] = field(default=())  # a file holding one of these is never stored

    def snapshot(self) -> Snapshot:
        """Record the tree as it is now; return its id."""
        self._ensure()
        out = self._git("ls-files", "-z", "-m", "-o", "--exclude-standard")
        names = list(dict.fromkeys(p for p in out.split(b"\0") if p and not p.endswith(b"/")))
        if len(names) > MAX_CHANGED_FILES:
            raise CheckpointError(f"too many files to checkpoint ({len(names)}) in {self.work_tree}")
        keep: list[bytes] = []
        big: list[bytes] = []
        for name in names:
            try:
                st = os.lstat(self.work_tree / os.fsdecode(name))
            except OSError:
                keep.append(name)  # deleted: update-index --remove drops it
                continue
            left_out = not _is_link(st.st_mode) and (st.st_size > self.max_file_bytes or self._has_secret(name))
            (big if left_out else keep).append(name)
        if keep:
            self._git("update-index", "--add", "--remove", "-z", "--stdin", stdin=b"\0".join(keep) + b"\0")
        if big:
            self._git("update-index", "--force-remove", "-z", "--stdin", stdin=b"\0".join(big) + b"\0")
        tree = self._git("write-tree").decode().strip()
        return Snapshot(tree, len(keep), tuple(os.fsdecode(b) for b in big))

    def _has_secret(self, name: bytes) -> bool:
        if not self.secrets:
            return False
        try:
            data = (self.work_tree / os.fsdecode(name)).read_bytes()
        except OSError:
            return False
        return any(s in data for s in self.secrets)

    def changes(self, current: str, target: str) -> list[Change]:
        """What restoring `target` over `current` would do, per file."""
        out = self._git("diff-tree", "-r", "-z", "--no-renames", "--name-status", current, target)
        parts = [p for p in out.split(b"\0") if p]
        return [Change(parts[i].decode()[:1], os.fsdecode(parts[i + 1])) for i in range(0, len(parts) - 1, 2)]

    def changed_names(self, a: str, b: str) -> set[str]:
        return {c.path for c in self.changes(a, b)}

    def patch(self, current: str, target: str) -> str:
        """A unified diff from the current tree to the target (what rewinding would change)."""
        return self._git("diff", "--no-color", "--no-ext-diff", "--binary", current, target).decode(
            errors="replace")

    def restore(self, target: str, changes: list[Change]) -> None:
        """Make the work tree's files match `target` for every changed path (byte for byte)."""
        tmp_index = self.index.with_name(self.index.name + ".restore")
        for c in changes:
            if c.status == "D":
                _unlink(self.work_tree, c.path)
        writes = [c.path for c in changes if c.status != "D"]
        if not writes:
            return
        try:
            self._git("read-tree", target, index=tmp_index)
            for p in writes:
                _clear_for_write(self.work_tree / p)
            payload = b"\0".join(os.fsencode(p) for p in writes) + b"\0"
            self._git("checkout-index", "-f", "-z", "--stdin", stdin=payload, index=tmp_index)
        finally:
            tmp_index.unlink(missing_ok=True)

    def _ensure(self) -> None:
        if not (self.store / "HEAD").exists():
            self._create_store()
        # Left by a git killed mid-write. The session lock makes us the index's only user, so it is stale.
        self.index.with_name(self.index.name + ".lock").unlink(missing_ok=True)
        if not self.index.exists():
            seed = self.store / "last-index"
            if seed.exists():
                shutil.copyfile(seed, self.index)  # a warm stat cache: the first snapshot hashes little

    def _create_store(self) -> None:
        """Build the store aside and rename it into place, so two sessions starting at once cannot clash."""
        self.store.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.store.with_name(f"{self.store.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        _run(["git", "init", "-q", "--bare", str(tmp)], _clean_env(), None, self.store.parent)
        env = {**_clean_env(), "GIT_DIR": str(tmp)}
        for key, value in _CONFIG:
            _run(["git", "config", key, value], env, None, self.store.parent)
        (tmp / "info").mkdir(exist_ok=True)
        (tmp / "info" / "attributes").write_text(_ATTRIBUTES)
        (tmp / "info" / "exclude").write_text("\n".join((*_EXCLUDES, *self.extra_excludes)) + "\n")
        try:
            os.rename(tmp, self.store)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)  # another session made it first
            if not (self.store / "HEAD").exists():
                raise

    def remember_index(self) -> None:
        """Keep this session's index as the seed for the next session's first snapshot."""
        if self.index.exists():
            tmp = self.store / f"last-index.{os.getpid()}"
            shutil.copyfile(self.index, tmp)
            os.replace(tmp, self.store / "last-index")

    def _git(self, *args: str, stdin: bytes | None = None, index: Path | None = None) -> bytes:
        env = _clean_env()
        env.update(GIT_DIR=str(self.store), GIT_WORK_TREE=str(self.work_tree),
                   GIT_INDEX_FILE=str(index or self.index))
        return _run(["git", *args], env, stdin, self.work_tree)


def _run(cmd: list[str], env: dict[str, str], stdin: bytes | None, cwd: Path) -> bytes:
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=cwd, check=False)
    except OSError as err:
        raise CheckpointError(f"cannot run git for checkpoints: {err}", hint="install git") from err
    if proc.returncode != 0:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        raise CheckpointError(f"git {cmd[1]} failed: {msg[-1] if msg else proc.returncode}")
    return proc.stdout


def _clean_env() -> dict[str, str]:
    """The user's environment minus git variables that would redirect our shadow repository."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return env


def _is_link(mode: int) -> bool:
    return (mode & 0o170000) == 0o120000


def _unlink(root: Path, rel: str) -> None:
    path = root / rel
    try:
        path.unlink()
    except FileNotFoundError:
        return
    parent = path.parent
    while parent != root and parent.is_relative_to(root):
        try:
            parent.rmdir()  # only empty directories the rewind left behind
        except OSError:
            break
        parent = parent.parent


def _clear_for_write(path: Path) -> None:
    """checkout-index cannot replace a directory with a file; an empty one can go."""
    if path.is_dir() and not path.is_symlink():
        with contextlib.suppress(OSError):
            path.rmdir()
