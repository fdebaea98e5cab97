"""The sandbox probe's remembered verdict (agentcli.sandbox.verdict), with the real bubblewrap behind a wrapper
script that logs each run and can be made to refuse (as a kernel that forbids user namespaces would)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentcli.sandbox import verdict
from agentcli.sandbox.bwrap import Bubblewrap, find_bwrap
from agentcli.tools.base import ToolContext
from tests.sandbox.helpers import bash, context, project


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path)


@pytest.fixture
def wrapper(tmp_path: Path) -> Path:
    """A bwrap that logs each run (a probe or a command) and refuses while `refuse` exists beside it (its own
    identity, the key's binary part, stays the same), or once if `busy` does (as a loaded system can)."""
    real = find_bwrap()
    assert real is not None
    script = tmp_path / "bwrap"
    script.write_text('#!/bin/sh\nd=$(dirname "$0")\n'
                      'case "$*" in *" -- true") echo probe;; *) echo command;; esac >> "$d/runs"\n'
                      f'if [ -e "$d/refuse" ]; then echo "bwrap: setting up uid map: Permission denied" >&2; '
                      f'exit 1; fi\n'
                      'if [ -e "$d/busy" ]; then rm "$d/busy"; '
                      'echo "bwrap: Creating new namespace failed: Resource temporarily unavailable" >&2; exit 1; fi\n'
                      f'exec {real} "$@"\n')
    script.chmod(0o755)
    return script


def session(root: Path, wrapper: Path) -> ToolContext:
    """A new session's sandbox over `root` (each call: a new Sandbox, as a new agentcli process makes)."""
    ctx = context(root)
    assert ctx.sandbox is not None
    ctx.sandbox.mechanism = Bubblewrap(str(wrapper))
    return ctx


def runs(wrapper: Path) -> list[str]:
    """"probe" or "command" for each run of the mechanism, in order."""
    log = wrapper.with_name("runs")
    return log.read_text().split() if log.exists() else []


def remembered(root: Path) -> dict[str, float]:
    data: dict[str, float] = json.loads((root.parent / "home" / ".agentcli" / "sandbox-verdicts.json").read_text())
    return data


def test_a_working_probe_is_remembered_and_the_next_session_skips_it(root: Path, wrapper: Path) -> None:
    assert bash(session(root, wrapper), "echo one").content == "one"
    assert runs(wrapper) == ["probe", "command"] and len(remembered(root)) == 1
    assert bash(session(root, wrapper), "echo two").content == "two"
    assert runs(wrapper) == ["probe", "command", "command"]  # the second session trusted the verdict


def test_a_changed_binary_is_a_new_key_and_probed_again(root: Path, wrapper: Path) -> None:
    bash(session(root, wrapper), "true")
    os.utime(wrapper, ns=(1, 1))  # same script, another identity: as after an upgrade
    bash(session(root, wrapper), "true")
    assert runs(wrapper) == ["probe", "command"] * 2
    assert len(remembered(root)) == 2


def test_a_stale_verdict_fails_closed_then_probes_and_forgets(root: Path, wrapper: Path) -> None:
    bash(session(root, wrapper), "true")
    wrapper.with_name("refuse").touch()  # the system now refuses namespaces; the key has not changed
    ctx = session(root, wrapper)
    out = bash(ctx, f"touch {root}/ran")
    assert out.is_error and not (root / "ran").exists()  # the trusted mechanism refused: nothing ran at all
    assert "does not work here (bwrap: setting up uid map: Permission denied)" in out.content
    assert ctx.sandbox is not None and not ctx.sandbox.confining  # decided as a fresh session would
    assert runs(wrapper) == ["probe", "command", "command", "probe"] and remembered(root) == {}


def test_only_a_working_probe_is_remembered(root: Path, wrapper: Path) -> None:
    wrapper.with_name("refuse").touch()
    out = bash(session(root, wrapper), "echo ran")
    assert out.content.startswith("ran\n(The bubblewrap sandbox does not work here")
    assert not (root.parent / "home" / ".agentcli" / "sandbox-verdicts.json").exists()


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"k": "yesterday"}'])
def test_an_unreadable_file_is_no_verdict(root: Path, wrapper: Path, text: str) -> None:
    home = root.parent / "home" / ".agentcli"
    home.mkdir(parents=True)
    (home / "sandbox-verdicts.json").write_text(text)
    assert not verdict.known_good(home, "k")
    bash(session(root, wrapper), "true")
    assert runs(wrapper) == ["probe", "command"]


def test_a_verdict_expires(root: Path, wrapper: Path) -> None:
    bash(session(root, wrapper), "true")
    home = root.parent / "home" / ".agentcli"
    (key,) = remembered(root)
    (home / "sandbox-verdicts.json").write_text(json.dumps({key: 1.0}))
    assert not verdict.known_good(home, key)
    bash(session(root, wrapper), "true")
    assert runs(wrapper) == ["probe", "command"] * 2


def test_a_probe_refused_for_a_moment_is_run_again(root: Path, wrapper: Path) -> None:
    """Issue 28: under load a namespace can be refused once; that is no reason to run the session unconfined."""
    wrapper.with_name("busy").touch()
    ctx = session(root, wrapper)
    assert bash(ctx, "echo ran").content == "ran"
    assert runs(wrapper) == ["probe", "probe", "command"]
    assert ctx.sandbox is not None and ctx.sandbox.confining and ctx.sandbox.take_notice() is None


def test_a_lasting_refusal_is_not_retried_and_the_user_is_told_once(root: Path, wrapper: Path) -> None:
    wrapper.with_name("refuse").touch()
    ctx = session(root, wrapper)
    bash(ctx, "true")
    assert runs(wrapper) == ["probe"]
    assert ctx.sandbox is not None
    notice = ctx.sandbox.take_notice()
    assert notice is not None and "does not work here (bwrap: setting up uid map: Permission denied)" in notice
    assert ctx.sandbox.take_notice() is None
