"""Marketplaces in Claude Code's format: `.claude-plugin/marketplace.json` with `name` and `plugins` (each with a
`name` and a `source`: a folder relative to the marketplace, or `{"source": "url"|"git", "url": …}`), added from a
local folder or a git repository (cloned with git's hooks and external helpers off)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError
from agentcli.plugins import store
from agentcli.plugins.manifest import NAME_RE
from agentcli.settings.projectfiles import MAX_PLUGIN_FILE, Unreadable, read_text_regular

MARKETPLACE_FILE = ".claude-plugin/marketplace.json"
GIT_TIMEOUT_S = 120.0


def _git(*args: str, cwd: Path | None = None) -> str:
    from agentcli.proc.gitsafe import git_env
    from agentcli.proc.groups import which

    exe = which("git")
    if exe is None:
        raise ConfigError("git is not installed", hint="install git, or add the marketplace from a folder")
    argv = [exe, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.sshCommand=ssh",
            "-c", "protocol.ext.allow=never", *args]
    try:
        done = subprocess.run(argv, cwd=cwd, env=git_env(), capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(f"git {args[0]} failed: {exc}") from exc
    if done.returncode != 0:
        raise ConfigError(f"git {args[0]} failed: {done.stderr.strip()[:300]}")
    return done.stdout.strip()


def is_git_url(source: str) -> bool:
    return source.endswith(".git") or "://" in source or source.startswith("git@")


def read(folder: Path) -> dict[str, Any]:
    path = folder / MARKETPLACE_FILE
    try:  # a marketplace's file: a link to a device or a FIFO must not hang the read
        text = read_text_regular(path, MAX_PLUGIN_FILE)
        if text is None:
            raise ConfigError(f"{folder} has no {MARKETPLACE_FILE}", hint="is this a plugin marketplace?")
        data = json.loads(text)
    except (Unreadable, ValueError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), list):
        raise ConfigError(f"{path} has no plugins list")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ConfigError(f"{path} has no valid name ({name!r})")
    return data


def add(source: str, state: store.State) -> store.Marketplace:
    """Adds the marketplace at `source`: a folder (read where it is), or a git URL (`https://…`, `file://…`,
    `….git`), cloned into agentcli's plugin folder and pinned at its commit."""
    if is_git_url(source):
        market = _clone(source)
    else:
        local = Path(source).expanduser().resolve()
        data = read(local)
        market = store.Marketplace(data["name"], str(local), "path", str(local))
    state.marketplaces[market.name] = market
    return market


def _clone(url: str) -> store.Marketplace:
    local = Path(url).expanduser()
    if "://" not in url and not url.startswith("git@") and local.exists():
        url = str(local.resolve())
    incoming = store.root() / "marketplaces" / ".incoming"
    shutil.rmtree(incoming, ignore_errors=True)
    incoming.parent.mkdir(parents=True, exist_ok=True)
    _git("clone", "--quiet", "--depth", "1", "--", url, str(incoming))
    data = read(incoming)
    dest = incoming.parent / data["name"]
    shutil.rmtree(dest, ignore_errors=True)
    incoming.rename(dest)
    return store.Marketplace(data["name"], url, "git", str(dest), _git("rev-parse", "HEAD", cwd=dest))


def refresh(market: store.Marketplace) -> None:
    """Brings a git marketplace's clone up to date (a folder is read as it is)."""
    if market.kind != "git":
        return
    folder = Path(market.folder)
    _git("fetch", "--quiet", "--depth", "1", "origin", cwd=folder)
    _git("reset", "--quiet", "--hard", "FETCH_HEAD", cwd=folder)
    market.commit = _git("rev-parse", "HEAD", cwd=folder)


def plugin_folder(market: store.Marketplace, plugin: str) -> tuple[Path, dict[str, Any]]:
    """The folder of `plugin` in `market` and its marketplace entry."""
    data = read(Path(market.folder))
    entry = next((p for p in data["plugins"] if isinstance(p, dict) and p.get("name") == plugin), None)
    if entry is None:
        names = ", ".join(str(p.get("name")) for p in data["plugins"] if isinstance(p, dict))
        raise ConfigError(f"marketplace {market.name} has no plugin {plugin!r}", hint=f"it has: {names}")
    source = entry.get("source")
    base = Path(market.folder).resolve()
    if isinstance(source, str):
        folder = (base / source).resolve()
        if not folder.is_relative_to(base):
            raise ConfigError(f"plugin {plugin}'s source {source!r} leaves the marketplace")
        return folder, entry
    raise ConfigError(f"plugin {plugin}'s source {source!r} is not a folder of the marketplace",
                      hint="agentcli installs plugins kept inside their marketplace")
