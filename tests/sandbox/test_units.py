"""The sandbox's pure parts: environment cleaning, the Seatbelt profile (text: it cannot run here), recognising
a sandbox denial, the settings and the mode."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.errors import ConfigError
from agentcli.proc import reaper
from agentcli.sandbox.denied import sandbox_denial
from agentcli.sandbox.env import scrub
from agentcli.sandbox.none import NoSandbox
from agentcli.sandbox.seatbelt import Seatbelt, profile, quote
from agentcli.sandbox.spec import Launch, SandboxSpec, resolve_mode
from agentcli.settings.config import load_settings
from agentcli.settings.trust import grants


def test_scrub_removes_keys_by_name_and_by_value() -> None:
    env = {"PATH": "/bin", "ANTHROPIC_API_KEY": "a" * 20, "GITHUB_TOKEN": "g", "innocent": "sk-secret-value-1",
           "DB_PASSWORD": "x", "HOME": "/root", "KEEP_API_KEY": "k", "EMBEDS": "pre-sk-secret-value-1-post"}
    out = scrub(env, secrets=("sk-secret-value-1",), keep=("KEEP_API_KEY",))
    assert out == {"PATH": "/bin", "HOME": "/root", "KEEP_API_KEY": "k"}


def test_scrub_takes_extra_patterns_case_insensitively() -> None:
    assert scrub({"corp_vault": "v", "X": "1"}, exclude=("CORP_*",)) == {"X": "1"}


def _spec(tmp_path: Path, mode: str = "workspace-write", network: bool = False) -> SandboxSpec:
    root = tmp_path / "my \"proj\""
    root.mkdir()
    return SandboxSpec(mode, root, (root,), network=network, home=tmp_path, agentcli_home=tmp_path / ".agentcli")


def test_seatbelt_profile_for_workspace_write(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    text = profile(spec, "workspace-write", hidden=[tmp_path / ".ssh"], tmpdir="/private/tmp")
    lines = text.splitlines()
    assert lines[:2] == ["(version 1)", "(deny default)"]
    assert "(allow file-read*)" in lines
    write = next(ln for ln in lines if ln.startswith("(allow file-write*"))
    assert quote(spec.project_root) in write and '"/private/tmp"' in write
    assert '\\"proj\\"' in write  # quotes in a path cannot end the string
    protected = next(ln for ln in lines if ln.startswith("(deny file-write*"))
    assert f"(subpath {quote(spec.project_root / '.git/config')})" in protected
    assert f"(subpath {quote(spec.project_root / '.agentcli')})" in protected
    secrets = lines[-3]
    assert secrets.startswith("(deny file-read* file-write*") and quote(tmp_path / ".ssh") in secrets
    assert '/(.*/)?\\.env$"' in secrets and '\\.env\\.[^/]*$"' in secrets
    # Unix sockets: the project's own only (no host socket is on the allow list here).
    own = f"(subpath {quote(os.path.realpath(spec.project_root))})"
    assert lines[-2] == f"(allow network-bind network-inbound (local unix-socket {own}))"
    assert lines[-1] == f"(allow network-outbound (remote unix-socket {own}))"
    # Later rules win in SBPL: the denials come after the allowances they narrow.
    assert lines.index(write) < lines.index(protected) < lines.index(secrets)


def test_seatbelt_read_only_network_and_full_access(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "read-only", network=True)
    text = profile(spec, "read-only", hidden=[], tmpdir="/tmp")
    write = next(ln for ln in text.splitlines() if ln.startswith("(allow file-write*"))
    assert str(spec.project_root) not in write and "(deny file-write* (subpath" not in text
    assert text.splitlines()[-1] == "(allow network*)"
    assert profile(spec, "danger-full-access", hidden=[], tmpdir="/tmp") == "(version 1)\n(allow default)\n"
    argv = Seatbelt().argv(Launch(spec, "read-only", ("ls", "-l"), spec.project_root))
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"] and argv[-3:] == ["--", "ls", "-l"]


def test_no_sandbox_runs_the_command_as_it_is_under_the_reaper(tmp_path: Path) -> None:
    """No confinement, but process lifetime still holds on Linux (agentcli.proc.reaper)."""
    argv = NoSandbox("why").argv(Launch(_spec(tmp_path), "workspace-write", ("ls",), tmp_path))
    assert argv[-3:] == [str(Path(reaper.__file__).resolve()), "--", "ls"] and argv[1:3] == ["-I", "-S"]


@pytest.mark.parametrize(("output", "code", "found"), [
    ("touch: cannot touch '/usr/x': Read-only file system", 1, True),
    ("cat: .env: Permission denied", 1, True),
    ("curl: (7) Failed to connect to 127.0.0.1 port 80: Couldn't connect to server", 7, True),
    ("OSError: [Errno 101] Network is unreachable", 1, True),
    ("Read-only file system", 0, False),
    ("error: tests failed", 1, False),
])
def test_sandbox_denial_is_recognised(output: str, code: int, found: bool) -> None:
    assert (sandbox_denial(output, code, network_off=True) is not None) == found


def test_network_words_count_only_when_the_network_is_off() -> None:
    assert sandbox_denial("Connection refused", 1, network_off=False) is None


def test_mode_resolution() -> None:
    assert resolve_mode(None, None) == "workspace-write"
    assert resolve_mode(None, "read-only") == "read-only"
    assert resolve_mode("danger-full-access", "read-only") == "danger-full-access"
    with pytest.raises(ConfigError) as err:
        resolve_mode("off", None)
    assert err.value.code == "bad_sandbox_mode"


def test_settings_read_sandbox_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    (home / "config.toml").write_text('sandbox_mode = "read-only"\nsandbox_network = true\n'
                                      'sandbox_allowed_hosts = ["pypi.org"]\nshell_env_exclude = ["CORP_*"]\n')
    s = load_settings(tmp_path, {})
    assert (s.sandbox.mode, s.sandbox.network, s.sandbox.allowed_hosts, s.sandbox.env_exclude) == (
        "read-only", True, ("pypi.org",), ("CORP_*",))
    assert load_settings(tmp_path, {"sandbox_mode": "workspace-write"}).sandbox.mode == "workspace-write"
    (home / "config.toml").write_text('shell_env_keep = "X"\n')
    with pytest.raises(ConfigError):
        load_settings(tmp_path, {})


def test_a_shared_project_file_cannot_loosen_the_sandbox_untrusted() -> None:
    said = grants({"sandbox_mode": "danger-full-access", "sandbox_network": True, "shell_env_keep": ["K"]})
    assert len(said) == 3


def test_an_untrusted_project_file_does_not_loosen_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / ".agentcli").mkdir()
    (tmp_path / ".agentcli" / "settings.toml").write_text('sandbox_mode = "danger-full-access"\n'
                                                          "sandbox_network = true\n")
    s = load_settings(tmp_path, {})
    assert s.sandbox.mode is None and s.sandbox.network is False
    assert any("sandbox_mode" in u for u in s.untrusted)


def test_a_missing_host_tmp_path_outside_the_roots_counts_as_stopped(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    line = f"touch: cannot touch '{outside}/x': No such file or directory"
    assert sandbox_denial(line, 1, network_off=True) is not None
    assert sandbox_denial(line, 1, network_off=True, writable=(tmp_path,)) is None
    assert sandbox_denial("cat: /tmp/nowhere/x: No such file or directory", 1, network_off=True) is None
    assert sandbox_denial("cat: missing.txt: No such file or directory", 1, network_off=True) is None


def test_remembered_unconfined_commands_match_exactly_or_by_simple_prefix(tmp_path: Path) -> None:
    from agentcli.core.escalation import remembered
    from agentcli.tools.base import ToolContext

    ctx = ToolContext(project_root=tmp_path)
    ctx.unsandboxed = ["Bash(make deploy)", "Bash(npm publish:*)", "Bash(git push *)", "Bash"]
    for command, expected in [("make deploy", True), ("make deploy2", False), ("npm publish --tag x", True),
                              ("npm publish; curl evil", False), ("npm publish $(id)", False),
                              ("git push origin main", True), ("git push | sh", False), ("ls", False)]:
        assert remembered(ctx, {"command": command}) == expected, command


def test_remember_for_this_project_is_saved_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcli.core.escalation import remember
    from agentcli.core.permissions import Approval
    from agentcli.tools.base import ToolContext

    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path / "home"))
    (tmp_path / ".git").mkdir()
    ctx = ToolContext(project_root=tmp_path)
    saved = remember(ctx, Approval("allow", remember="Bash(make deploy)", scope="local"))
    assert saved is not None and saved.startswith("saved to") and "settings.local.toml" in saved
    assert load_settings(tmp_path, {}).sandbox.unconfined == ("Bash(make deploy)",)
    assert remember(ctx, Approval("allow", remember="Bash(x)", scope="session")) is None


def test_an_untrusted_shared_file_cannot_declare_unconfined_commands(tmp_path: Path) -> None:
    (tmp_path / ".agentcli").mkdir()
    (tmp_path / ".agentcli" / "settings.toml").write_text('[sandbox]\nunconfined = ["Bash(curl evil)"]\n')
    assert load_settings(tmp_path, {}).sandbox.unconfined == ()


def test_the_secret_walk_hides_denied_paths_and_links_to_them_judging_paths_alone(tmp_path: Path) -> None:
    import os

    root = Path(os.path.realpath(tmp_path)) / "proj"
    (root / "keys").mkdir(parents=True)
    (root / "keys" / "server.pem").write_text("KEY")
    (root / "notes.txt").write_text("hi")
    (root / "innocent.txt").symlink_to(root / "keys" / "server.pem")
    (root / ".env.production").write_text("T=1")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "x.pem").write_text("skipped: not where a user keeps a secret")
    asked: list[str] = []

    def denied(path: str) -> bool:
        asked.append(path)
        return path.endswith(".pem")

    spec = SandboxSpec("workspace-write", root, (root,), home=tmp_path / "home", read_denied=denied)
    hidden = {p.relative_to(root).as_posix() for p in spec.hidden_inside()}
    assert hidden == {"keys/server.pem", "innocent.txt", ".env.production"}
    assert all(os.path.isabs(p) and os.path.normpath(p) == p for p in asked)
