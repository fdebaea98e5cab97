"""The sandbox probe's verdict, remembered across sessions.

Every session used to run its mechanism once (`bwrap … true`, ~4 ms wall, 2 ms CPU plus a fork of the agent)
before its first command, to learn whether this system allows it. The answer depends on a few things that
rarely change; they make the key:

- the probe's own argv (mechanism binary, the project's mounts, the secrets hidden), the binary's identity
  (device, inode, size, mtime, ctime: a reinstalled or replaced bwrap is a new key), our uid;
- the kernel and this boot (`/proc/sys/kernel/random/boot_id`), the user namespace we run in (a container is
  another), and the settings that allow or refuse unprivileged user namespaces (`user.max_user_namespaces`,
  Debian's `kernel.unprivileged_userns_clone`, Ubuntu's `kernel.apparmor_restrict_unprivileged_userns`), and
  the AppArmor profile folder's mtime (a profile added for bwrap);
- the time: a verdict older than a day is probed again.

Only "works" is remembered. A stale "works" fails closed: the command runs under the mechanism, the mechanism
refuses, the command does not run, and nothing ever runs unconfined because of this file. The Bash tool then
asks the session to probe for real (`Sandbox.recheck`), which forgets the verdict and decides as a fresh
session would. Where these facts cannot be read (not Linux), nothing is remembered and every session probes.
The file sits in agentcli's home, which sandboxed commands cannot read or write.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

TTL_S = 24 * 3600
MAX_ENTRIES = 64
_FILE = "sandbox-verdicts.json"
_SYSCTLS = ("/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone",
            "/proc/sys/kernel/apparmor_restrict_unprivileged_userns")


def probe_key(argv: list[str]) -> str | None:
    """What the probe's answer depends on, hashed; None when it cannot be known here (nothing is remembered)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        userns = os.stat("/proc/self/ns/user").st_ino
        st = os.stat(argv[0])
    except (OSError, IndexError):
        return None
    parts = [boot, str(userns), str(os.getuid()), os.uname().release,
             f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}", *argv]
    for name in _SYSCTLS:
        try:
            parts.append(Path(name).read_text().strip())
        except OSError:
            parts.append("-")
    with contextlib.suppress(OSError):
        parts.append(str(os.stat("/etc/apparmor.d").st_mtime_ns))
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def known_good(home: Path, key: str) -> bool:
    """Whether the probe with this key worked less than a day ago."""
    seen = _read(home).get(key)
    return isinstance(seen, (int, float)) and 0 <= time.time() - seen < TTL_S


def remember(home: Path, key: str) -> None:
    """Record that the probe with this key worked (best effort: a read-only home only costs a probe)."""
    entries = {k: float(v) for k, v in _read(home).items() if isinstance(v, (int, float))}
    entries[key] = time.time()
    newest = dict(sorted(entries.items(), key=lambda kv: kv[1])[-MAX_ENTRIES:])
    _write(home, newest)


def forget(home: Path, key: str) -> None:
    entries = _read(home)
    if entries.pop(key, None) is not None:
        _write(home, entries)


def _read(home: Path) -> dict[str, object]:
    try:
        data = json.loads((home / _FILE).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(home: Path, entries: Mapping[str, object]) -> None:
    from agentcli.atomicfile import atomic_write

    with contextlib.suppress(OSError):
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(home / _FILE, json.dumps(entries), new_mode=0o600)
