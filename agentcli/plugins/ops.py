"""What `agentcli plugin …` and `/plugin` do: install, uninstall, enable, disable, trust, update (with a summary
of what changed, applied only when accepted), and the rows `list` shows."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from agentcli.errors import ConfigError
from agentcli.plugins import marketplace, store
from agentcli.plugins.manifest import NAME_RE, read_manifest


def split_ref(ref: str, state: store.State) -> tuple[str, str]:
    """`name@marketplace`, or a bare name when exactly one marketplace (or installed plugin) has it."""
    name, at, market = ref.partition("@")
    if not NAME_RE.match(name) or (at and not NAME_RE.match(market)):
        raise ConfigError(f"{ref!r} is not NAME@MARKETPLACE", hint="lowercase letters, digits, '-', '_' and '.'")
    if at:
        return name, market
    found = [p.marketplace for p in state.plugins.values() if p.plugin == name]
    if len(found) == 1:
        return name, found[0]
    raise ConfigError(f"say which marketplace: {name}@MARKETPLACE",
                      hint=f"marketplaces: {', '.join(state.marketplaces) or 'none (agentcli plugin marketplace add)'}")


def _market(state: store.State, name: str) -> store.Marketplace:
    market = state.marketplaces.get(name)
    if market is None:
        raise ConfigError(f"no marketplace named {name!r}", hint="add it: agentcli plugin marketplace add PATH|URL")
    return market


def installed(state: store.State, ref: str) -> store.Installed:
    name, market = split_ref(ref, state)
    found = state.plugins.get(f"{name}@{market}")
    if found is None:
        raise ConfigError(f"plugin {name}@{market} is not installed", hint="agentcli plugin list")
    return found


def install(ref: str) -> store.Installed:
    state = store.load()
    name, market_name = split_ref(ref, state)
    market = _market(state, market_name)
    folder, entry = marketplace.plugin_folder(market, name)
    manifest = read_manifest(folder, entry)
    files = store.file_digests(folder)
    pinned = store.digest(files)
    key = f"{name}@{market.name}"
    old = state.plugins.get(key)
    copy = store.pin_copy(folder, key, pinned)
    state.plugins[key] = store.Installed(name, market.name, manifest.version, pinned, str(copy), files,
                                         enabled=True, trusted=False, commit=market.commit, entry=entry)
    store.save(state)
    if old is not None and old.folder != str(copy):
        shutil.rmtree(old.folder, ignore_errors=True)
    return state.plugins[key]


def uninstall(ref: str) -> store.Installed:
    state = store.load()
    found = installed(state, ref)
    del state.plugins[found.key]
    store.save(state)
    shutil.rmtree(Path(found.folder).parent, ignore_errors=True)
    return found


def set_flag(ref: str, *, enabled: bool | None = None, trusted: bool | None = None) -> store.Installed:
    state = store.load()
    found = installed(state, ref)
    if enabled is not None:
        found.enabled = enabled
    if trusted is not None:
        found.trusted = trusted
    store.save(state)
    return found


@dataclass(frozen=True, slots=True)
class Update:
    plugin: store.Installed
    version: str
    digest: str
    lines: tuple[str, ...]  # what changed, file by file; empty: up to date


def check_update(ref: str) -> Update:
    """What updating `ref` would change (the marketplace refreshed first); nothing is applied."""
    state = store.load()
    found = installed(state, ref)
    market = _market(state, found.marketplace)
    marketplace.refresh(market)
    store.save(state)
    folder, entry = marketplace.plugin_folder(market, found.plugin)
    files = store.file_digests(folder)
    new = store.digest(files)
    version = read_manifest(folder, entry).version
    lines = store.changes(found.files, files) if new != found.digest else []
    if lines and version != found.version:
        lines.insert(0, f"version {found.version or '?'} → {version or '?'}")
    return Update(found, version, new, tuple(lines))


def apply_update(update: Update) -> store.Installed:
    """Installs the checked update, if the marketplace still holds exactly what was shown; trust is asked again
    (new hooks or servers are new code)."""
    state = store.load()
    found = state.plugins[update.plugin.key]
    folder, entry = marketplace.plugin_folder(_market(state, found.marketplace), found.plugin)
    files = store.file_digests(folder)
    if store.digest(files) != update.digest:
        raise ConfigError(f"{found.key} changed again while you read the summary", hint="run update again")
    old = found.folder
    found.folder = str(store.pin_copy(folder, found.key, update.digest))
    found.digest, found.files, found.version, found.entry = update.digest, files, update.version, entry
    found.commit = state.marketplaces[found.marketplace].commit
    found.trusted = False
    store.save(state)
    if old != found.folder:
        shutil.rmtree(old, ignore_errors=True)
    return found


def rows(state: store.State) -> list[dict[str, str]]:
    """One row per installed plugin for `list`: name, source, version, pin, enabled and trust states."""
    out = []
    for p in state.plugins.values():
        market = state.marketplaces.get(p.marketplace)
        out.append({"plugin": p.key, "source": market.source if market else "(marketplace removed)",
                    "version": p.version or "?", "pinned": (p.commit[:12] + " " if p.commit else "") + p.digest[:12],
                    "state": "enabled" if p.enabled else "disabled",
                    "trust": "trusted" if p.trusted else "untrusted (hooks and MCP servers do not run)"})
    return out
