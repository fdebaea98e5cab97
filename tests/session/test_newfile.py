"""A new session file in two steps (agentcli.atomicfile.NewFile): whole at its path, or not there at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.atomicfile import NewFile
from agentcli.llm.messages import Message
from agentcli.session.store import open_session


def test_nothing_is_visible_until_published_then_all_of_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    new = NewFile(path, b'{"type":"session"}\n')
    os.write(new.fd, b'{"type":"message"}\n')  # appended before publishing: the same file
    assert not path.exists()
    new.publish()
    os.close(new.fd)
    assert path.read_bytes() == b'{"type":"session"}\n{"type":"message"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temp file left


def test_a_taken_name_fails_and_leaves_the_other_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("someone else's\n")
    new = NewFile(path, b"mine\n")
    with pytest.raises(FileExistsError):
        new.publish()
    os.close(new.fd)
    assert path.read_text() == "someone else's\n" and [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]


def test_a_new_session_is_at_its_path_once_a_turn_has_ended(project: Path) -> None:
    s = open_session(project)
    w = s.writer
    assert w is not None
    w.message(Message.user("go"))
    w.end_turn()
    lines = w.path.read_text().splitlines()
    assert len(lines) == 2 and '"type":"session"' in lines[0]
    s.close()
