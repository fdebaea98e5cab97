"""The Linux sandbox, for real: bubblewrap namespaces on this kernel, driven through the Bash tool."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from tests.sandbox.helpers import alive, bash, context, marker_process, project, visible_home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path)


def test_writes_inside_the_project_work(root: Path) -> None:
    out = bash(context(root), "echo hi > made.txt && mkdir -p d/e && cp made.txt d/e/ && cat d/e/made.txt")
    assert out.content == "hi" and not out.is_error
    assert (root / "d" / "e" / "made.txt").read_text() == "hi\n"


def test_secret_files_inside_the_writable_project_are_unreadable(root: Path) -> None:
    ctx = context(root)
    for cmd in ("cat .env", "cat src/.env.local", "grep -r marker .", "cp .env copy && cat copy",
                "python3 -c 'print(open(\".env\").read())'"):
        out = bash(ctx, cmd)
        assert "env-marker" not in out.content and "nested-marker" not in out.content, cmd
    out = bash(ctx, "mv .env gone; rm -f .env; chmod 644 .env; echo x > .env")
    assert out.is_error and (root / ".env").read_text() == "TOKEN=env-marker\n"


def test_home_secrets_and_agentcli_home_are_unreadable(root: Path) -> None:
    home = root.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("ssh-marker")
    (home / ".agentcli").mkdir()
    (home / ".agentcli" / "config.toml").write_text("api_key = 'cfg-marker'")
    out = bash(context(root, home=home), f"cat {home}/.ssh/id_ed25519; cat {home}/.agentcli/*; ls {home}/.ssh")
    assert "ssh-marker" not in out.content and "cfg-marker" not in out.content
    assert "cannot open directory" in out.content


def test_files_that_configure_execution_stay_read_only(root: Path) -> None:
    ctx = context(root)
    out = bash(ctx, "echo '[core] fsmonitor = evil' >> .git/config; echo evil > .git/hooks/pre-commit; "
                    "mv .git .git2; mv .git/config .git/c2")
    assert out.is_error and "Read-only file system" in out.content
    assert (root / ".git" / "config").read_text() == "[core]\n"
    assert not (root / ".git" / "hooks" / "pre-commit").exists()
    assert out.metadata.get("sandbox_denied")


def test_protected_files_a_command_creates_are_removed(root: Path) -> None:
    out = bash(context(root), "mkdir .agentcli && echo 'permission_mode = \"bypassPermissions\"' "
                              "> .agentcli/settings.local.toml; echo '{}' > .mcp.json")
    assert not (root / ".agentcli").exists() and not (root / ".mcp.json").exists()
    assert "Removed" in out.content


def test_root_inside_has_no_capabilities_and_no_new_user_namespaces(root: Path) -> None:
    out = bash(context(root), "grep CapEff /proc/self/status; unshare -U true || echo no-userns; "
                              "umount .env 2>&1 || echo no-umount; cat .env")
    assert "0000000000000000" in out.content and "no-userns" in out.content and "no-umount" in out.content
    assert "env-marker" not in out.content


def test_writes_outside_fail_and_leave_nothing(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    out = bash(context(root), f"touch {outside}/a; ln -s {outside}/b link && echo x > link; "
                              f"python3 -c 'open(\"{outside}/c\", \"w\")'; touch /usr/agentcli-{uuid.uuid4().hex}")
    assert out.is_error and sorted(os.listdir(outside)) == []
    assert "Read-only file system" in out.content


def test_read_only_mode_refuses_writes_in_the_project(root: Path) -> None:
    out = bash(context(root, "read-only"), "touch made.txt; echo x >> src/a.py; cat src/a.py")
    assert "a = 1" in out.content and not (root / "made.txt").exists()
    assert (root / "src" / "a.py").read_text() == "a = 1\n"


def test_plan_mode_runs_commands_read_only(root: Path) -> None:
    ctx = context(root)
    assert ctx.sandbox is not None
    ctx.sandbox.current_permission_mode = lambda: "plan"
    bash(ctx, "touch made.txt")
    assert not (root / "made.txt").exists()


def test_nothing_a_command_starts_outlives_it(root: Path) -> None:
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    sleeper = marker_process(marker)
    out = bash(context(root), f"nohup {sleeper} >/dev/null 2>&1 & setsid {sleeper} & "
                              f"( ( {sleeper} & ) & ); disown -a; echo started")
    assert out.content == "started"
    assert alive(marker) == []


def test_background_jobs_die_with_the_session(root: Path) -> None:
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    out = bash(context(root), f"setsid nohup {marker_process(marker)} & {marker_process(marker)}",
               run_in_background=True)
    assert "running in background" in out.content
    assert alive(marker) == []


def test_temp_dir_is_private_and_writable(root: Path) -> None:
    name = f"agentcli-test-{uuid.uuid4().hex}"
    out = bash(context(root), f"echo t > $TMPDIR/{name} && cat /tmp/{name} && ls /tmp")
    assert out.content.splitlines()[0] == "t" and name in out.content
    assert not os.path.exists(f"/tmp/{name}")


def test_danger_full_access_is_unconfined_but_keeps_process_lifetime(root: Path, tmp_path: Path) -> None:
    marker = f"agentcli-test-{uuid.uuid4().hex}"
    out = bash(context(root, "danger-full-access"), f"touch {tmp_path}/free; setsid {marker_process(marker)} &")
    assert (tmp_path / "free").exists() and not out.is_error
    assert alive(marker) == []


def test_a_mechanism_that_does_not_work_here_is_said_not_pretended(root: Path) -> None:
    from agentcli.sandbox.bwrap import Bubblewrap

    ctx = context(root)
    assert ctx.sandbox is not None
    ctx.sandbox.mechanism = Bubblewrap("/bin/false")  # installed, but refusing to run anything
    out = bash(ctx, "echo ran")
    assert out.content.splitlines() == ["ran", "(The bubblewrap sandbox does not work here (exit status 1): "
                                        "commands run unconfined; only the permission policy guards them. "
                                        "`agentcli doctor` shows more.)"]
    assert not ctx.sandbox.confining and "bubblewrap failed" in ctx.sandbox.describe()
    assert bash(ctx, "echo again").content == "again"  # said once


def test_added_directories_are_writable_and_protected_like_the_project(root: Path, tmp_path: Path) -> None:
    extra = Path(os.path.realpath(tmp_path)) / "extra"
    (extra / ".agentcli").mkdir(parents=True)
    (extra / ".env.production").write_text("TOKEN=extra-marker\n")
    out = bash(context(root, add_dirs=(extra,)), f"echo ok > {extra}/made; cat {extra}/.env.production; "
                                                 f"touch {extra}/.agentcli/settings.local.toml")
    assert (extra / "made").read_text() == "ok\n" and "extra-marker" not in out.content
    assert not (extra / ".agentcli" / "settings.local.toml").exists()


def test_a_preset_can_choose_read_only(root: Path) -> None:
    from agentcli.settings.presets import load_preset

    assert load_preset("review").extra.get("sandbox_mode") == "read-only"


def test_a_command_too_long_for_argv_still_runs_confined(root: Path) -> None:
    long_command = "x=" + "a" * 150_000 + "; echo ${#x}; cat .env; touch /usr/agentcli-long"
    out = bash(context(root), long_command)
    assert out.content.splitlines()[0] == "150000" and "env-marker" not in out.content
    assert not os.path.exists("/usr/agentcli-long")


def test_git_init_in_a_new_project_works_but_not_a_config_that_runs_things(tmp_path: Path) -> None:
    fresh = Path(os.path.realpath(tmp_path)) / "fresh"
    (fresh / "sub").mkdir(parents=True)
    (fresh / "sub" / ".agentcli").mkdir()  # makes sub/ the project root, without a repository yet
    root = fresh / "sub"
    out = bash(context(root), "git init -q && echo x > f && git add f && "
                              "git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline | wc -l")
    assert out.content.splitlines()[0] == "1", out.content
    assert (root / ".git" / "config").exists() and (root / ".git" / "hooks").exists()
    assert "Removed" not in out.content
    (fresh / "other").mkdir()
    (fresh / "other" / ".agentcli").mkdir()
    other = fresh / "other"
    out = bash(context(other), "git init -q && git config core.fsmonitor 'touch /tmp/pwned' && "
                               "echo '#!/bin/sh' > .git/hooks/pre-commit")
    assert not (other / ".git" / "config").exists() and not (other / ".git" / "hooks").exists()
    assert "Removed" in out.content


def test_unix_sockets_that_lead_out_are_hidden(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    # Outside /tmp (which the sandbox replaces anyway), as an SSH agent's or a container engine's socket is; where
    # no other worker's sandbox walks (they would mask it, and race on its removal).
    with visible_home() as d:
        path = os.path.join(d, "agent.sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen()
        monkeypatch.setenv("SSH_AUTH_SOCK", path)
        try:
            probe = (f"python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{path}\"); "
                     "print(\"in\")'")
            out = bash(context(root), probe)
            assert out.is_error and "in" not in out.content.splitlines()
            assert bash(context(root, "danger-full-access"), probe).content == "in"  # the socket does work
        finally:
            server.close()
