"""The one atomic file writer: temp file in the same directory, write, fsync, rename over the target, fsync the
directory. A crash leaves the old file or the new one, never half of each; readers never see a partial file.

Sessions (repair), the session index, config and settings files, trust records, caches and the file tools all
write through `atomic_write`. Append-only session logs are the exception by design (session/writer.py).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["NewFile", "atomic_write"]


def atomic_write(
    path: Path, data: str | bytes, *, new_mode: int = 0o666, exclusive: bool = False, dir_fd: int | None = None
) -> os.stat_result:
    """Replace `path` with `data` (str is written as UTF-8) and return the new file's stat.

    The parent directory is created when missing. An existing file keeps its permission bits; a new one gets
    `new_mode` (less the umask). `exclusive`: create only, FileExistsError when `path` exists (a hard link
    instead of the rename), so a new session file appears whole, its header in it, or not at all.
    `dir_fd`: an open descriptor of `path`'s directory (agentcli.tools.beneath), used for every step instead of
    the directory's path, so a directory swapped for a symlink meanwhile cannot redirect the write.
    Both fsyncs cost about 1 ms on ext4, nothing beside a model turn.
    """
    if dir_fd is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    name: str | Path = path.name if dir_fd is not None else path
    raw = data.encode("utf-8") if isinstance(data, str) else data
    keep: int | None = None
    with contextlib.suppress(FileNotFoundError):
        keep = stat.S_IMODE(os.stat(name, dir_fd=dir_fd).st_mode)
    # os.urandom, not tempfile: tempfile imports shutil and random, a measurable share of start-up.
    tmp: str | Path = f".{path.name}.{os.urandom(6).hex()}.tmp"
    if dir_fd is None:
        tmp = path.with_name(str(tmp))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), new_mode, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
            if keep is not None and not exclusive:
                os.fchmod(f.fileno(), keep)
        if exclusive:
            os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            os.unlink(tmp, dir_fd=dir_fd)
        else:
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    if dir_fd is None:
        _fsync_dir(path.parent)
        return os.stat(path)
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)
    return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)


class NewFile:
    """`atomic_write(path, data, exclusive=True)` in two steps, for a file that is appended to at once (a new
    session log): the constructor writes `data` into a hidden temp file beside `path` and keeps it open for
    appending (`fd`); `publish()` fsyncs it, hard-links it to `path` (FileExistsError if taken) and fsyncs the
    directory, so `path` still appears whole (at least `data`) or not at all. What is appended to `fd` before
    `publish()` is in the same file. The caller may run `publish()` in another thread, off its own path; until
    then, and if it fails, nothing is visible at `path`."""

    def __init__(self, path: Path, data: bytes, *, new_mode: int = 0o600) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        self.fd = os.open(self.tmp, flags, new_mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        except BaseException:
            os.close(self.fd)
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            raise

    def publish(self) -> None:
        try:
            os.fsync(self.fd)
            os.link(self.tmp, self.path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
        _fsync_dir(self.path.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable. Some file systems refuse to open or fsync a directory: not an error."""
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
