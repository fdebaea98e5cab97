"""A repository decides what the files agentcli reads from it are: a FIFO where `.mcp.json`, a hook's script, a
git config or a `.gitignore` belongs would hang a plain read for ever (a start that never ends, a rule that is never
written). Each is read without blocking and bounded (agentcli.settings.projectfiles), and said when unusable."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.permissions.gitcheck import repo_problem
from agentcli.sandbox.execconfig import git_followed
from agentcli.settings import trust
from agentcli.settings.projectfiles import Unreadable, read_text_regular
from agentcli.settings.writer import keep_local_out_of_git
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM

_pool = concurrent.futures.ThreadPoolExecutor(4)


def soon(fn: Callable[..., Any], *args: Any, fifos: tuple[Path, ...] = ()) -> Any:
    """`fn(*args)`, failing (not hanging the suite) when it blocks on one of `fifos`: then each is opened for
    writing and closed, so the stuck read ends (at end of file) and the worker thread with it."""
    future = _pool.submit(fn, *args)
    try:
        return future.result(timeout=30)
    except concurrent.futures.TimeoutError:
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        raise AssertionError(f"{fn.__name__} blocked on a FIFO") from None


def test_a_fifo_mcp_json_is_said_and_the_run_goes_on(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    os.mkfifo(proj / ".mcp.json")
    fake_llm.push(Reply(text="done"))
    run = agentcli(["-p", "hi", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC), timeout=60)
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == "done"
    assert ".mcp.json is not a readable regular file of at most 1 MiB; its servers were not started" in run.stderr


def test_a_fifo_hook_script_is_never_pinned(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    script = root / "hook.sh"
    os.mkfifo(script)
    assert soon(trust.script_pinned, root, script, fifos=(script,)) is False  # not taken as absent (pinned)
    soon(trust.pin, root, [script], fifos=(script,))  # nothing recorded: an unreadable file cannot be checked
    assert soon(trust.script_pinned, root, script, fifos=(script,)) is False
    link = root / "dangling.sh"
    link.symlink_to(root / "nowhere")
    assert trust.script_pinned(root, link) is False


def test_fifos_in_the_git_directory_are_problems_not_hangs(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    config = root / ".git" / "config"
    config.unlink()
    os.mkfifo(config)
    assert soon(repo_problem, str(root), fifos=(config,)) == f"cannot read {root / '.git' / 'config'}"
    assert soon(git_followed, root, fifos=(config,)) == []
    config.unlink()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    common = root / ".git" / "commondir"
    os.mkfifo(common)
    assert soon(repo_problem, str(root), fifos=(common,)) == f"cannot read {root / '.git'}/commondir"
    assert isinstance(soon(git_followed, root, fifos=(common,)), list)


def test_a_fifo_gitignore_does_not_hang_saving_a_local_rule(tmp_path: Path) -> None:
    folder = tmp_path / ".agentcli"
    folder.mkdir()
    os.mkfifo(folder / ".gitignore")
    soon(keep_local_out_of_git, folder / "settings.local.toml", fifos=(folder / ".gitignore",))  # left as is
    assert (folder / ".gitignore").is_fifo()


def test_the_bounded_reader(tmp_path: Path) -> None:
    assert read_text_regular(tmp_path / "absent", 10) is None
    (tmp_path / "small").write_text("héllo")
    assert read_text_regular(tmp_path / "small", 10) == "héllo"
    (tmp_path / "big").write_text("x" * 11)
    for name in ("big", "fifo", "binary"):
        if name == "fifo":
            os.mkfifo(tmp_path / name)
        if name == "binary":
            (tmp_path / name).write_bytes(b"\xff\xfe")
        try:
            soon(read_text_regular, tmp_path / name, 10, fifos=(tmp_path / name,))
        except Unreadable:
            continue
        raise AssertionError(f"{name} was read")


def test_a_fifo_named_like_an_image_or_a_git_index(tmp_path: Path) -> None:
    from agentcli.llm.imagefile import ImageError, read_image
    from agentcli.sandbox.gitlater import gitlinks

    fifo = tmp_path / "shot.png"
    os.mkfifo(fifo)
    try:
        soon(read_image, fifo, fifos=(fifo,))
    except ImageError as err:
        assert "not a readable regular file" in str(err)
    else:
        raise AssertionError("a FIFO was read as an image")
    index = tmp_path / "index"
    os.mkfifo(index)
    assert soon(gitlinks, index, fifos=(index,)) == []


def test_a_marketplace_file_linked_to_a_device_is_an_error_not_an_endless_read(tmp_path: Path) -> None:
    """git can carry a symlink (not a FIFO): a marketplace's file pointing at /dev/zero would be read for ever."""
    from agentcli.errors import ConfigError
    from agentcli.plugins.marketplace import MARKETPLACE_FILE, read

    path = tmp_path / MARKETPLACE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/dev/zero")
    try:
        soon(read, tmp_path)
    except ConfigError as err:
        assert "is not valid JSON" in str(err)
    else:
        raise AssertionError("a device was read as a marketplace")


def test_hooks_trust_says_a_script_it_cannot_read_rather_than_trusting_it(tmp_path: Path) -> None:
    """Too big to hash (a FIFO is not taken for a script at all; the tests run as root, who reads any mode)."""
    from tests.hooks.test_hooks_as_user import user_hooks

    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    with open(proj / "hook.sh", "wb") as f:
        f.truncate(trust.MAX_TRUSTED_BYTES + 1)  # sparse: nothing written
    user_hooks({"Stop": [{"hooks": [{"type": "command", "command": 'bash "$CLAUDE_PROJECT_DIR"/hook.sh'}]}]})
    done = agentcli(["hooks", "trust"], proj, timeout=60)
    assert done.status == 0, done.stderr
    assert "not trusted: hook.sh is not a readable regular file" in done.stderr
    assert "hook.sh" not in done.stdout
