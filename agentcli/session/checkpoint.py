"""Checkpoints of the working tree in a shadow git object store.

`git` runs with `GIT_DIR=<project sessions dir>/shadow.git`, `GIT_WORK_TREE=<project>` and a per-session
`GIT_INDEX_FILE`, so it works in directories that are not git repositories and never touches the user's own
`.git`. `.gitignore` files are respected; files over `max_file_bytes` and likely secret files (`.env`, keys)
are left out. A snapshot is a tree id: only changed files are hashed, thanks to the index's stat cache.

Snapshots of one ShadowGit are serialized (a lock), so a warm-up in a background thread (`warm()`), a
turn-end snapshot in another and a checkpoint can never run git on the same index at once. Many files
hashed at once (the first snapshot of a project) go into one pack instead of thousands of loose objects.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import subprocess
import threading
import time
from collections.abc import Collection
from dataclasses import field
from functools import cache
from pathlib import Path

from agentcli.errors import SessionError
from agentcli.record import record
from agentcli.session.layout import checkpoints_primed

MAX_FILE_BYTES = 5 * 1024 * 1024
# How much of what git does not track a checkpoint keeps before a destructive command (`rm -r`, `git clean`).
# About a second of CPU at 64 MiB (bench/bench_capture.py); AGENTCLI_CAPTURE_MB raises it.
CAPTURE_BUDGET = 64 * 1024 * 1024
MAX_CHANGED_FILES = 50_000
# From this many files, one `update-index` writes a pack (bulk check-in) instead of a loose object per file:
# about 4x less time for a cold tree, where creating thousands of small files dominates.
BULK_FILES = 64
CHUNK_FILES = 2000
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"
_SECRETS = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", ".netrc", ".npmrc",
            ".pypirc")
_EXCLUDES = (".env", ".env.*", "!.env.example", "!.env.sample", "*.pem", "*.key", "id_rsa*", "id_ed25519*",
             "id_ecdsa*", ".netrc", ".npmrc", ".pypirc",
             # Caches and installed dependencies: large, rebuildable, and never what a rewind is for.
             "node_modules/", ".venv/", "__pycache__/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".tox/")
_CONFIG = (("core.bare", "false"), ("core.autocrlf", "false"), ("core.safecrlf", "false"),
           ("core.symlinks", "true"), ("core.untrackedCache", "true"), ("core.fsmonitor", "false"),
           ("core.quotePath", "false"), ("gc.auto", "0"), ("gc.pruneExpire", "never"), ("diff.renames", "false"))


class CheckpointError(SessionError):
    code = "checkpoint_failed"


_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def is_oid(text: object) -> bool:
    """A git object id (SHA-1 or SHA-256 hex): what a checkpoint record's tree must be."""
    return isinstance(text, str) and _OID.fullmatch(text) is not None


def oid(text: str) -> str:
    """`text`, checked to be an object id before it reaches git's command line: a tree read from a session
    file that began with `-` would be an option (`--output=FILE` writes a file)."""
    if not is_oid(text):
        raise CheckpointError(f"not a checkpoint id: {text[:60]!r}")
    return text


@record
class Snapshot:
    tree: str
    hashed: int  # files re-read for this snapshot
    skipped: tuple[str, ...] = ()  # too large, or holding a secret


@record
class Capture:
    """A snapshot that also holds untracked and ignored files a destructive command could reach: `kept` bytes
    of `files` files stored, `too_large` the files left out because the budget ran out (largest first)."""

    snapshot: Snapshot
    files: int
    kept: int
    too_large: tuple[str, ...] = ()
    seconds: float = 0.0


@record
class Change:
    status: str  # A (only in the target: will be created) | D (will be deleted) | M | T (type change)
    path: str


@record(frozen=False)
class ShadowGit:
    store: Path
    work_tree: Path
    index: Path
    max_file_bytes: int = MAX_FILE_BYTES
    extra_excludes: tuple[str, ...] = field(default=())
    secrets: tuple[bytes, ...] = field(default=(), repr=False)  # a file holding one of these is never stored
    capture_budget: int = CAPTURE_BUDGET
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)
    _children: _Children = field(default_factory=lambda: _Children(), init=False, repr=False, compare=False)
    _warmer: threading.Thread | None = field(default=None, init=False, repr=False, compare=False)
    # The tree last written from the index, and the index's identity then (see `_identity`): a tree is a
    # function of the index alone, so while the index is the same, `write-tree` would print the same id.
    _last_tree: tuple[bytes, str] | None = field(default=None, init=False, repr=False, compare=False)

    def snapshot(self) -> Snapshot:
        """Record the tree as it is now; return its id. Thread-safe: concurrent calls take turns."""
        with self._lock:
            return self._snapshot()

    def warm(self, refresh: bool = False) -> None:
        """When the project has no checkpoint index yet (its first session, or a resumed session whose own
        index is gone), start a snapshot in a daemon thread and forget it: the stat cache and the object store
        fill while the session starts, so the first real checkpoint hashes only what changed since. With an
        index to start from, the first checkpoint is cheap already and a warm-up would only repeat its scan,
        unless `refresh`: the session is waiting for the model anyway (after a turn of read-only tools), and
        files changed since the index was last written get hashed now, off the first checkpoint's path.
        At most one warm-up per session. One still running when the session closes is stopped by `stop()`;
        it never delays exit."""
        if not refresh and checkpoints_primed(self.store, self.index):
            return
        if self._warmer is None:
            self._warmer = threading.Thread(target=self._warm, name="agentcli-checkpoint-warmup", daemon=True)
            self._warmer.start()

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait for the warm-up (if any) to end; True when none is running."""
        if self._warmer is not None:
            self._warmer.join(timeout)
            return not self._warmer.is_alive()
        return True

    def _warm(self) -> None:
        with contextlib.suppress(Exception):  # a real checkpoint will report the same problem, if it recurs
            self.snapshot()
            _sweep_stale_packs(self.store / "objects" / "pack")

    def stop(self) -> None:
        """The session is closing: kill the git processes still running (a warm-up) and wait for its thread.

        The join takes milliseconds (its git is dead) and matters: a child forked but not yet exec'd holds
        copies of our descriptors, and the session lock must really be free once the writer releases it."""
        self._children.stop()
        try:
            if self._warmer is not None and self._warmer is not threading.current_thread():
                self._warmer.join(timeout=10)
        finally:
            self._children.resume()

    def _snapshot(self) -> Snapshot:
        self._ensure()
        out = self._git("ls-files", "-z", "-m", "-o", "--exclude-standard")
        names = list(dict.fromkeys(p for p in out.split(b"\0") if p and not p.endswith(b"/")))
        if len(names) > MAX_CHANGED_FILES:
            raise CheckpointError(f"too many files to checkpoint ({len(names)}) in {self.work_tree}")
        hashed, skipped = 0, list[bytes]()
        # In chunks, each saved in the index as it is done: a warm-up stopped at close keeps what it did, and
        # close() hands that index on to the project's next session.
        for start in range(0, len(names), CHUNK_FILES):
            keep, big = self._sort_out(names[start : start + CHUNK_FILES])
            self._update_index(keep, big)
            hashed, skipped = hashed + len(keep), skipped + big
        return Snapshot(self._write_tree(), hashed, tuple(os.fsdecode(b) for b in skipped))

    def capture(self, pathspecs: list[str], budget: int) -> Capture:
        """A snapshot as `snapshot()`, plus the untracked and ignored files under `pathspecs` (what `rm -r`, `git
        clean -x` and the like would destroy), up to `budget` bytes in all, secrets left out. They go into a
        copy of the index: the session's index, and so its later snapshots, stay as they were."""
        t0 = time.monotonic()
        with self._lock:
            base = self._snapshot()
            excludes = [a for pattern in _SECRETS for a in ("-x", pattern)]
            out = self._git("ls-files", "-z", "-o", *excludes, "--", *pathspecs)
            names = [p for p in out.split(b"\0") if p and not p.endswith(b"/")]
            keep, too_large, kept = self._within(names, budget)
            if not keep:
                return Capture(base, 0, 0, too_large, time.monotonic() - t0)
            tmp_index = self.index.with_name(self.index.name + ".capture")
            try:
                shutil.copy2(self.index, tmp_index)
                bulk = ("-c", "core.bigFileThreshold=1") if len(keep) >= BULK_FILES and _batched_checkin() else ()
                # Build outputs and caches, while the command waits: stored uncompressed, half the CPU of level 1
                # (bench/bench_capture.py).
                fast = ("-c", "core.compression=0")
                for start in range(0, len(keep), CHUNK_FILES):
                    chunk = keep[start : start + CHUNK_FILES]
                    self._git(*fast, *bulk, "update-index", "--add", "-z", "--stdin", stdin=b"\0".join(chunk) + b"\0",
                              index=tmp_index)
                tree = self._git("write-tree", index=tmp_index).decode().strip()
            finally:
                tmp_index.unlink(missing_ok=True)
        snap = Snapshot(tree, base.hashed + len(keep), base.skipped)
        return Capture(snap, len(keep), kept, too_large, time.monotonic() - t0)

    def _within(self, names: list[bytes], budget: int) -> tuple[list[bytes], tuple[str, ...], int]:
        """The files to keep (regular files and links, no secret), smallest first until `budget` bytes are used;
        the names of those that did not fit."""
        sized: list[tuple[int, bytes]] = []
        root = os.fsencode(self.work_tree) + b"/"
        for name in names:
            try:
                st = os.lstat(root + name)
            except OSError:
                continue
            if _is_link(st.st_mode):
                sized.append((0, name))
            elif stat.S_ISREG(st.st_mode) and not self._has_secret(root + name):
                sized.append((st.st_size, name))
        sized.sort()
        keep: list[bytes] = []
        used = 0
        for size, name in sized:
            if used + size > budget:
                break
            keep.append(name)
            used += size
        left = [os.fsdecode(n) for _, n in reversed(sized[len(keep) :])]
        return keep, tuple(left), used

    def _write_tree(self) -> str:
        """The tree of the index; without running git when the index is the one the last tree came from
        (nothing changed since: a turn that only read files, or ran a command that changed nothing)."""
        before = _identity(self.index)
        if self._last_tree is not None and before is not None and self._last_tree[0] == before:
            return self._last_tree[1]
        tree = self._git("write-tree").decode().strip()
        after = _identity(self.index)  # write-tree may have rewritten the index (its cached trees)
        self._last_tree = (after, tree) if after is not None else None
        return tree

    def _update_index(self, keep: list[bytes], big: list[bytes]) -> None:
        if keep:
            # Files over core.bigFileThreshold are streamed into one pack per update-index (git >= 2.37 batches
            # them; older ones would write a pack per file, so they keep loose objects).
            bulk = ("-c", "core.bigFileThreshold=1") if len(keep) >= BULK_FILES and _batched_checkin() else ()
            self._git(*bulk, "update-index", "--add", "--remove", "-z", "--stdin", stdin=b"\0".join(keep) + b"\0")
        if big:
            self._git("update-index", "--force-remove", "-z", "--stdin", stdin=b"\0".join(big) + b"\0")

    def _sort_out(self, names: list[bytes]) -> tuple[list[bytes], list[bytes]]:
        """(names to store or drop from the index, names left out: too big, holding a secret, or neither a file
        nor a link: a FIFO or socket, which git cannot store and which would block a read). Plain string paths,
        not Path objects: this runs for every file of a cold tree."""
        keep: list[bytes] = []
        big: list[bytes] = []
        root = os.fsencode(self.work_tree) + b"/"
        for name in names:
            path = root + name
            try:
                st = os.lstat(path)
            except OSError:
                keep.append(name)  # deleted: update-index --remove drops it
                continue
            if _is_link(st.st_mode):
                left_out = False
            else:
                left_out = (not stat.S_ISREG(st.st_mode) or st.st_size > self.max_file_bytes
                            or self._has_secret(path))
            (big if left_out else keep).append(name)
        return keep, big

    def _has_secret(self, path: bytes) -> bool:
        if not self.secrets:
            return False
        try:  # not blocking, not following a link: the file may have become a FIFO since it was looked at
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return False
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return True  # not a plain file after all: left out
            data = f.read(self.max_file_bytes + 1)
        return any(s in data for s in self.secrets)

    def changes(self, current: str, target: str) -> list[Change]:
        """What restoring `target` over `current` would do, per file."""
        out = self._git("diff-tree", "-r", "-z", "--no-renames", "--name-status", oid(current), oid(target))
        parts = [p for p in out.split(b"\0") if p]
        return [Change(parts[i].decode()[:1], os.fsdecode(parts[i + 1])) for i in range(0, len(parts) - 1, 2)]

    def changed_names(self, a: str, b: str) -> set[str]:
        return {c.path for c in self.changes(a, b)}

    def patch(self, current: str, target: str, exclude: Collection[str] = ()) -> str:
        """A unified diff from the current tree to the target (what rewinding would change), leaving out the
        paths in `exclude`."""
        skip = [f":(exclude,literal,top){path}" for path in sorted(exclude)]
        return self._git("diff", "--no-color", "--no-ext-diff", "--no-textconv", "--binary", oid(current),
                         oid(target), *(["--", ".", *skip] if skip else [])).decode(errors="replace")

    def restore(self, target: str, changes: list[Change]) -> None:
        """Make the work tree's files match `target` for every changed path (byte for byte)."""
        with self._lock:  # no snapshot sees a half-restored tree
            self._restore(target, changes)

    def _restore(self, target: str, changes: list[Change]) -> None:
        unsafe = [c.path for c in changes if not _inside(self.work_tree, c.path)]
        if unsafe:  # checked before anything changes: a rewind is done whole or not at all
            raise CheckpointError(f"will not rewind {unsafe[0]!r}: it is not a plain path inside "
                                  f"{self.work_tree}", hint="the files changed since the rewind was planned "
                                                            "(a directory replaced by a link?): plan it again")
        tmp_index = self.index.with_name(self.index.name + ".restore")
        for c in changes:
            if c.status == "D":
                _unlink(self.work_tree, c.path)
        writes = [c.path for c in changes if c.status != "D"]
        if not writes:
            return
        try:
            self._git("read-tree", oid(target), index=tmp_index)
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
                shutil.copy2(seed, self.index)  # a warm stat cache: the first snapshot hashes little

    def _create_store(self) -> None:
        """Build the store aside and rename it into place, so two sessions starting at once cannot clash."""
        self.store.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.store.with_name(f"{self.store.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            _run([_git_exe(), "init", "-q", "--bare", str(tmp)], _clean_env(), None, self.store.parent,
                 self._children)
            # Appended sections override what init wrote (the last value wins): one write, not ten `git config`.
            with open(tmp / "config", "a", encoding="utf-8") as f:
                f.writelines(f"[{key.split('.')[0]}]\n\t{key.split('.')[1]} = {value}\n" for key, value in _CONFIG)
            (tmp / "info").mkdir(exist_ok=True)
            (tmp / "info" / "attributes").write_text(_ATTRIBUTES)
            (tmp / "info" / "exclude").write_text("\n".join((*_EXCLUDES, *self.extra_excludes)) + "\n")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)  # a warm-up stopped mid-way leaves nothing behind
            raise
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
            shutil.copy2(self.index, tmp)
            os.replace(tmp, self.store / "last-index")

    def _git(self, *args: str, stdin: bytes | None = None, index: Path | None = None) -> bytes:
        env = _clean_env()
        env.update(GIT_DIR=str(self.store), GIT_WORK_TREE=str(self.work_tree),
                   GIT_INDEX_FILE=str(index or self.index))
        return _run([_git_exe(), *args], env, stdin, self.work_tree, self._children)


class _Children:
    """The git processes running for one ShadowGit, so that `stop()` can end them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._stopped = False

    def start(self, cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._stopped:
                raise CheckpointError("checkpoints are stopping: the session is closing")
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env, cwd=cwd)
            self._running.add(proc)
            return proc

    def done(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(proc)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            for proc in self._running:
                with contextlib.suppress(OSError):
                    proc.kill()

    def resume(self) -> None:
        with self._lock:
            self._stopped = False


def _run(cmd: list[str], env: dict[str, str], stdin: bytes | None, cwd: Path,
         children: _Children | None = None) -> bytes:
    try:
        if children is None:
            proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=cwd, check=False)
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        else:
            child = children.start(cmd, env, cwd)
            try:
                out, err = child.communicate(stdin)
            finally:
                children.done(child)
            code = child.returncode
    except OSError as error:
        raise CheckpointError(f"cannot run git for checkpoints: {error}", hint="install git") from error
    if code != 0:
        msg = err.decode(errors="replace").strip().splitlines()
        verb = next((a for a in cmd[1:] if not a.startswith("-") and "=" not in a), cmd[-1])
        raise CheckpointError(f"git {verb} failed: {msg[-1] if msg else code}")
    return out


def _git_exe() -> str:
    """git's absolute path, from the absolute PATH entries only: git runs with the project as its working
    directory, where a relative entry (`.`, `bin`) would find a `git` the repository put there. Looked up at
    each call (a few stat calls) so that PATH is read as it is now, as a bare "git" would be."""
    found = shutil.which("git", path=os.pathsep.join(d for d in os.get_exec_path() if os.path.isabs(d)))
    return found or "/nonexistent/git"


@cache
def _batched_checkin() -> bool:
    """Does this git batch bulk check-ins of `update-index` into one pack (git >= 2.37)?"""
    try:
        out = subprocess.run([_git_exe(), "--version"], capture_output=True, check=False).stdout.decode()
        major, minor = (int(x) for x in out.split()[2].split(".")[:2])
    except (OSError, IndexError, ValueError):
        return False
    return (major, minor) >= (2, 37)


def _sweep_stale_packs(pack_dir: Path, age_s: float = 3600) -> None:
    """Remove half-written packs a stopped warm-up left (`tmp_pack_*`); recent ones may be another session's."""
    cutoff = time.time() - age_s
    for tmp in pack_dir.glob("tmp_*"):
        with contextlib.suppress(OSError):
            if tmp.stat().st_mtime < cutoff:
                tmp.unlink()


def _identity(index: Path) -> bytes | None:
    """What identifies an index's content: the SHA-1 of it that git writes as its last 20 bytes. None when
    unreadable or when git left the checksum out (zeros: `index.skipHash`, which a user's config may set)."""
    from agentcli.settings.projectfiles import open_regular

    f = open_regular(index)  # a FIFO there must not hang the check
    if f is None:
        return None
    try:
        with f:
            f.seek(-20, os.SEEK_END)
            trailer = f.read(20)
    except OSError:
        return None
    return trailer if len(trailer) == 20 and trailer != bytes(20) else None


def _clean_env() -> dict[str, str]:
    """The user's environment minus git variables that would redirect our shadow repository."""
    from agentcli.proc.gitsafe import git_env

    return {**git_env(), "LC_ALL": "C"}


def _is_link(mode: int) -> bool:
    return (mode & 0o170000) == 0o120000


def _inside(root: Path, rel: str) -> bool:
    """Whether deleting or writing `root/rel` touches only `root`: a relative path without `.`, `..` or
    `.git`, and no symbolic link among its directories (followed, one would lead outside the project)."""
    parts = rel.split("/")
    if any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        return False
    parent = root
    for part in parts[:-1]:
        parent = parent / part
        if parent.is_symlink():
            return False
    return True


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
