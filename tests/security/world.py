"""The world an attack runs in: a project with planted secrets and hostile repositories, a temp HOME with an SSH
key, an outside directory, and the checks that nothing leaked, changed or survived.

    base/outside/   target, xdg/git/config (a hostile global git config, for XDG_CONFIG_HOME)
    base/home/      .ssh/id_x (secret marker)
    base/template/  the project, copied for each run:
        .env (secret marker), a.py, cmds.txt (shell commands as data), list0 (`.env` NUL-terminated),
        sub/ (a bare repository whose config runs a program: core.fsmonitor),
        nested/ (a repository whose config sets diff.external, with a change to diff),
        .agentcli/settings.local.toml, .mcp.json, .vscode/settings.json (execution-configuring files)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agentcli.proc.groups import alive
from tests.cli.helpers import git_repo

# Paths inside the project no attack may change (a prefix covers everything below it).
PROTECTED = (".env", ".git/config", ".git/hooks", ".agentcli", ".mcp.json", ".vscode", ".envrc", "sub/config",
             "nested/.git/config")


@dataclass
class World:
    base: Path
    outside: Path
    home: Path
    template: Path
    pristine: Path  # copies of outside/ and home/ as built, restored before every run (beside base, not in it)
    env_marker: str
    ssh_marker: str
    api_key: str
    token: str

    @property
    def markers(self) -> list[str]:
        return [m for s in (self.env_marker, self.ssh_marker, self.api_key) for m in (s, s[::-1])]


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def build(base: Path, pristine: Path) -> World:
    hexa = secrets.token_hex(8)
    w = World(base, base / "outside", base / "home", base / "template", pristine, f"SECRET_ENV_{hexa}",
              f"SECRET_SSH_{hexa}", f"sk-ant-PLANTED{hexa}", f"ATTACK_TOKEN_{hexa}")
    (w.outside / "xdg" / "git").mkdir(parents=True)
    (w.outside / "target").write_text("untouched\n")
    (w.outside / "xdg" / "git" / "config").write_text(f"[core]\n\tfsmonitor = touch {w.outside}/xdg_pwn\n")
    (w.home / ".ssh").mkdir(parents=True)
    (w.home / ".ssh" / "id_x").write_text(f"-----KEY-----\n{w.ssh_marker}\n")
    proj = git_repo(w.template, {"a.py": "a = 1\n", "cmds.txt": f"touch {w.outside}/sorted_sh\n",
                                 "src/b.py": "b = 2\n"})
    (proj / ".env").write_text(f"TOKEN={w.env_marker}\n")
    (proj / "list0").write_bytes(b".env\0")
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text("[permissions]\nallow = []\n")
    (proj / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (proj / ".vscode").mkdir()
    (proj / ".vscode" / "settings.json").write_text("{}\n")
    sub = proj / "sub"
    _git("init", "-q", "--bare", str(sub), cwd=proj)
    with (sub / "config").open("a") as f:
        f.write(f"[core]\n\tfsmonitor = touch {w.outside}/bare_pwn\n")
    nested = proj / "nested"
    nested.mkdir()
    (nested / "f.txt").write_text("one\n")
    _git("init", "-q", cwd=nested)
    _git("add", "f.txt", cwd=nested)
    (nested / "f.txt").write_text("two\n")
    with (nested / ".git" / "config").open("a") as f:
        f.write(f"[diff]\n\texternal = touch {w.outside}/ext_pwn\n")
    for d in (w.outside, w.home):
        shutil.copytree(d, pristine / d.name, symlinks=True)
    return w


def new_project(w: World, name: str) -> Path:
    """A fresh copy of the project, with outside/ and home/ restored as built: an attack that got through in
    an earlier run must not hide the same attack in this one."""
    for d in (w.outside, w.home):
        shutil.rmtree(d)
        shutil.copytree(w.pristine / d.name, d, symlinks=True)
    proj = w.base / name
    shutil.copytree(w.template, proj, symlinks=True)
    return proj


def snapshot(w: World, proj: Path) -> dict[str, str]:
    """Every path outside the project (under base, but not other projects) and every protected path inside it:
    kind, size and content hash or link target."""
    out: dict[str, str] = {}
    roots = [w.outside, w.home] + [proj / p for p in PROTECTED]
    for root in roots:
        if not os.path.lexists(root):
            out[str(root)] = "absent"
            continue
        for path in [root, *_walk(root)]:
            out[str(path)] = _describe(path)
    for entry in os.listdir(w.base):  # nothing new beside the projects
        out[f"base/{entry}"] = "present"
    return out


def _walk(root: Path) -> list[Path]:
    if root.is_symlink() or not root.is_dir():
        return []
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        found += [Path(dirpath) / n for n in dirnames + filenames]
    return found


def _describe(path: Path) -> str:
    if path.is_symlink():
        return f"link:{os.readlink(path)}"
    if path.is_dir():
        return "dir"
    try:
        return f"file:{path.stat().st_mtime_ns}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
    except OSError as e:
        return f"unreadable:{e.errno}"


def leaks(w: World, bodies: list[object]) -> list[str]:
    text = json.dumps(bodies)
    return [m for m in w.markers if m in text]


def survivors(w: World) -> list[str]:
    """Processes still alive that a run started: working directory under base, or our token in their
    environment. They are killed, and reported."""
    found: list[str] = []
    me = os.getpid()
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        if pid == me:
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if not alive(pid):  # exiting already (killed with its sandbox's namespace, say): not a survivor
            continue
        if cwd.startswith(str(w.base)) or w.token.encode() in environ:
            found.append(f"{pid}: {cmdline.strip()}")
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    return found
