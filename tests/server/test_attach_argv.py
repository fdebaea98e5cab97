"""The thin client's own readers, held to the project's: its argv reader to the flag table's (`fast_values`), its
event-stream reader to agentcli.net.sse, its token path to agentcli.paths; and what it imports."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.cli.entry import fast_values
from agentcli.net.sse import SSEDecoder
from agentcli.paths import home
from agentcli.server.attach import events, read_argv
from agentcli.server.token import token_file, token_path
from tests.server.conftest import ROOT

WORDS = ["-p", "--print", "--attach", "--attach=http://h:1", "http://127.0.0.1:8787", "--token", "--token=t",
         "--cwd", "/tmp", "-r", "--resume", "--resume=abc", "abc", "--output-format", "json", "stream-json", "xml",
         "--output-format=text", "hello", "two words", "-", "--", "-x", "--model", "m/x", "-c", "-pc", "-1",
         "-r=x", "--print=1", "--attach=", "-rabc"]


def _table(argv: list[str]) -> dict[str, object] | None:
    values = fast_values(argv)
    return None if values is None else {k: v for k, v in values.items() if v is not None}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=7))
def test_the_thin_reader_takes_an_argv_only_as_the_table_reads_it(argv: list[str]) -> None:
    mine = read_argv(argv)
    if mine is not None:
        assert mine == _table(argv), argv
        assert mine["attach"] and set(mine) <= {"attach", "token", "print_mode", "prompt", "cwd", "resume",
                                                "output_format"}


@pytest.mark.parametrize("argv", [
    ["-p", "hello", "--attach", "http://127.0.0.1:8787"],
    ["--attach=http://[::1]:8787", "--print", "--output-format", "stream-json", "fix it"],
    ["--attach", "http://h:1", "--token", "t", "--cwd", "/tmp", "-r", "sid"],
    ["--attach", "http://h:1", "-p", "--resume=sid", "-r"],
    ["--attach", "http://h:1"],
])
def test_usual_attached_argvs_take_the_fast_way(argv: list[str]) -> None:
    assert read_argv(argv) is not None and read_argv(argv) == _table(argv)


@pytest.mark.parametrize("argv", [
    ["-p", "hello", "--attach", "http://h:1", "--model", "x/y"],  # reported as ignored by the usual way
    ["hello", "--attach", "http://h:1"],  # a prompt without -p
    ["-p", "a", "b", "--attach", "http://h:1"],  # two prompts: typer words the error
    ["-p", "--attach", "http://h:1", "--output-format", "xml"],
    ["-p", "hi", "--attach"],
    ["-p", "hi", "--attach", "http://h:1", "--help"],
    ["--output-format", "-p", "--attach=http://h:1", "--output-format=text"],  # "-p" was a value, not a choice
])
def test_anything_else_takes_the_usual_way(argv: list[str]) -> None:
    assert read_argv(argv) is None


STREAMS = [
    b": watching\n\nevent: system\ndata: {\"a\": 1}\n\n",
    b"data: {\"a\": 1}\r\n\r\nevent: x\r\ndata:{\"b\": 2}\r\n\r\n",
    b"data: one\ndata: two\nid: 7\nretry: 10\n\n: comment\ndata\n\n",
    b"event: result\ndata: {\"type\": \"result\"}\n\ndata: unterminated\n",
]


@pytest.mark.parametrize("raw", STREAMS)
def test_the_event_reader_gives_what_the_sse_decoder_gives(raw: bytes) -> None:
    decoder = SSEDecoder()
    expected = [e.data for e in decoder.feed(raw)]
    assert list(events(io.BytesIO(raw).readline)) == expected


def test_the_token_file_is_the_one_in_agentcli_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert token_file() == home() / "server" / "token"
    monkeypatch.delenv("AGENTCLI_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Path(token_path()) == home() / "server" / "token" == tmp_path / ".agentcli" / "server" / "token"


HEAVY = ("agentcli.core", "agentcli.assembly", "agentcli.driver", "agentcli.providers", "agentcli.tools",
         "agentcli.llm", "agentcli.settings", "agentcli.cli.entry", "agentcli.cli.flags", "agentcli.cli.table",
         "anthropic", "openai", "httpx", "httpcore", "anyio", "typer", "click", "rich", "pydantic", "asyncio",
         "http.client", "email", "ssl", "pathlib", "typing", "dataclasses")


def test_the_attached_run_imports_nothing_heavy(tmp_path: Path) -> None:
    """Not a timing: the modules whose import alone would spend the attached run's budget (~45 ms) stay out;
    a server that cannot be reached makes the run end at its first request."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentcli", "-p", "hi", "--attach",
                          "http://127.0.0.1:9", "--token", "t"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1 and "[server_unreachable]" in run.stderr, run.stderr[-2000:]
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)  # what this interpreter's site loads anyway
    loaded = imported(run.stderr) - imported(bare.stderr)
    assert "agentcli.server.attach" in loaded
    heavy = sorted(m for m in loaded if m in HEAVY or m.startswith(tuple(h + "." for h in HEAVY)))
    assert not heavy, heavy


def imported(importtime: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in importtime.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize(("url", "said"), [("foo", "not an http:// or https:// URL"),
                                           ("http://127.0.0.1:99999", "Port out of range"),
                                           ("ftp://127.0.0.1:1", "not an http:// or https:// URL")])
def test_a_bad_url_is_a_usage_error_before_any_token_lookup(url: str, said: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from agentcli.server.attach import main

    assert main(["-p", "hi", "--attach", url]) == 2
    err = capsys.readouterr().err
    assert said in err and err.rstrip().endswith("[usage]") and "token" not in err


def test_the_token_comes_from_the_flag_the_environment_or_agentclis_home(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    from agentcli.errors import UsageError
    from agentcli.server.attach import find_token

    remote, local = "http://192.0.2.1:9", "http://127.0.0.1:9"
    with pytest.raises(UsageError, match="another machine"):
        find_token(remote, None)
    with pytest.raises(UsageError, match="no server token in"):
        find_token(local, None)
    path = Path(token_path())
    path.parent.mkdir(parents=True)
    path.write_text("from-home\n")
    path.chmod(0o644)
    with pytest.raises(UsageError, match="readable by others"):
        find_token(local, None)
    path.chmod(0o600)
    assert find_token(local, None) == "from-home"
    with pytest.raises(UsageError, match="another machine"):  # the home's token is never sent elsewhere
        find_token(remote, None)
    monkeypatch.setenv("AGENTCLI_SERVER_TOKEN", "from-env")
    assert find_token(remote, None) == find_token(local, None) == "from-env"
    assert find_token(remote, "from-flag") == "from-flag"
    project = tmp_path / "proj"  # a token file in the project is never read
    (project / ".agentcli" / "server").mkdir(parents=True)
    (project / ".agentcli" / "server" / "token").write_text("from-project\n")
    monkeypatch.delenv("AGENTCLI_SERVER_TOKEN")
    monkeypatch.chdir(project)
    assert find_token(local, None) == "from-home"


def test_the_thin_reader_knows_the_tables_output_formats() -> None:
    from agentcli.cli.table import OUTPUT_FORMATS as TABLE
    from agentcli.server.attach import OUTPUT_FORMATS

    assert OUTPUT_FORMATS == TABLE
