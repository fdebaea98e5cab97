"""Checkpoints off the hot path (issue 4): the index warms in the background when a session opens, the turn-end
snapshot runs beside the event loop, and the records keep their order and meaning."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agentcli.errors import SessionError
from agentcli.llm.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentcli.session import layout
from agentcli.session.checkpoint import BULK_FILES
from agentcli.session.store import open_session
from agentcli.session.writer import SessionWriter


def _files(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"pkg{i % 5}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text(f"file {i}\n")


def _records(w: SessionWriter) -> list[dict[str, Any]]:
    return [json.loads(line) for line in w.path.read_text().splitlines()[1:]]


def _tool_turn(w: SessionWriter, root: Path, n: int) -> str:
    """An assistant Edit-like call that changes a file; returns the tool result's record id."""
    call = ToolUseBlock(f"toolu_{n}", "Write", {"file_path": "new.txt"})
    w.message(Message("assistant", (call,)))
    asyncio.run(w.checkpoint(call.id, call.name))
    (root / f"made{n}.txt").write_text(f"turn {n}\n")
    return w.message(Message("user", (ToolResultBlock(call.id, "ok"),)))


def test_opening_a_session_warms_the_index_into_one_pack(project: Path) -> None:
    _files(project, BULK_FILES * 3)
    s = open_session(project)
    assert s.writer is not None and s.writer.shadow is not None
    assert s.writer.shadow.wait_warm(60)
    asyncio.run(s.writer.checkpoint("toolu_1", "Bash"))
    s.writer.flush()  # a new session file appears at its path in the background
    first = _records(s.writer)[-1]["data"]
    assert isinstance(first, dict) and first["hashed"] == 0 and "error" not in first  # the warm-up did it
    store = layout.shadow_store(layout.sessions_dir(project.resolve()))
    loose = [p for p in (store / "objects").glob("??/*")]
    assert list((store / "objects" / "pack").glob("*.pack")) and len(loose) < BULK_FILES
    names = s.writer.shadow._git("ls-tree", "-r", "--name-only", str(first["tree"])).decode().split()
    assert len(names) == BULK_FILES * 3
    s.close()


def test_close_ends_a_warm_up_and_frees_the_session_at_once(project: Path) -> None:
    _files(project, 400)
    for _ in range(3):
        s = open_session(project)
        assert s.writer is not None and s.writer.shadow is not None
        s.close()  # most likely while the warm-up still runs
        assert s.writer.shadow.wait_warm(0)
        again = open_session(project, resume=s.session_id)  # the lock is free: no git child holds it
        assert again.writer is not None
        asyncio.run(again.writer.checkpoint("toolu_x", "Bash"))
        data = _records(again.writer)[-1]["data"]
        assert isinstance(data, dict) and "error" not in data and data["tree"]
        again.close()


def test_turn_end_snapshot_does_not_block_and_keeps_its_place(project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    s = open_session(project)
    w = s.writer
    assert w is not None and w.shadow is not None
    w.message(Message.user("go"))
    result_id = _tool_turn(w, project, 1)
    with w.shadow._lock:  # a snapshot cannot run now: end_turn must return all the same
        ender = threading.Thread(target=w.end_turn)
        ender.start()
        ender.join(10)
        assert not ender.is_alive()
        assert all(r.get("data", {}).get("phase") != "turn_end" for r in _records(w))
    answer_id = w.message(Message("assistant", (TextBlock("done"),)))
    w.flush()  # the answer may wait in memory behind the snapshot's record
    recs = _records(w)
    turn_end = recs[-2]
    assert turn_end["type"] == "checkpoint" and turn_end["parent_id"] == result_id
    assert recs[-1]["id"] == answer_id and recs[-1]["parent_id"] == turn_end["id"]
    tree = turn_end["data"]["tree"]
    names = w.shadow._git("ls-tree", "-r", "--name-only", str(tree)).decode().split()
    assert names == ["a.txt", "made1.txt"]  # the tree as the tool left it
    s.close()


def test_pending_turn_end_is_written_before_a_checkpoint_and_at_close(project: Path) -> None:
    s = open_session(project)
    w = s.writer
    assert w is not None
    w.message(Message.user("go"))
    first = _tool_turn(w, project, 1)
    w.end_turn()
    second = _tool_turn(w, project, 2)  # the next before_tool checkpoint follows the pending turn_end
    w.end_turn()
    s.close()  # the second turn_end is written on close, not lost
    recs = [r for r in _records(w) if r["type"] == "checkpoint"]
    phases = [r["data"]["phase"] for r in recs]
    assert phases == ["before_tool", "turn_end", "before_tool", "turn_end"]
    assert recs[1]["parent_id"] == first and recs[3]["parent_id"] == second
    ids = [r["id"] for r in _records(w)]
    assert ids.index(recs[1]["id"]) < ids.index(recs[2]["id"])


def test_records_wait_behind_a_running_turn_end_snapshot_not_for_it(project: Path) -> None:
    s = open_session(project)
    w = s.writer
    assert w is not None and w.shadow is not None
    w.message(Message.user("go"))
    result_id = _tool_turn(w, project, 1)
    with w.shadow._lock:  # the snapshot cannot finish while the next reply's records come in
        w.end_turn()
        on_disk = len(_records(w))
        answer_id = w.message(Message("assistant", (TextBlock("done"),)))  # returns at once
        w.record("note", {"n": 1})
        assert len(_records(w)) == on_disk  # in memory, behind the checkpoint's reserved place
        # The run's end (a fast model's reply came before git was done): no wait for git on the loop thread.
        ender = threading.Thread(target=w.end_turn)
        ender.start()
        ender.join(10)
        assert not ender.is_alive()
        assert len(_records(w)) == on_disk
    pending = w._turn_end
    assert pending is not None
    pending.job.result(timeout=60)  # written by the background thread once the snapshot is done: no call needed
    recs = _records(w)[on_disk:]
    assert [r["type"] for r in recs] == ["checkpoint", "message", "note"]
    assert recs[0]["parent_id"] == result_id and recs[0]["data"]["phase"] == "turn_end" and recs[0]["data"]["tree"]
    assert recs[1]["id"] == answer_id and recs[1]["parent_id"] == recs[0]["id"]
    assert recs[2]["parent_id"] == answer_id
    s.close()


def test_a_turn_of_read_only_tools_runs_no_git_on_the_loop_thread(project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    s = open_session(project)
    w = s.writer
    assert w is not None and w.shadow is not None
    assert w.shadow.wait_warm(60)
    w.message(Message.user("go"))
    w.message(Message("assistant", (ToolUseBlock("toolu_r", "Read", {"file_path": "a.txt"}),)))
    w.message(Message("user", (ToolResultBlock("toolu_r", "a"),)))
    with w.shadow._lock:  # a git snapshot cannot run now: end_turn (its index refresh) must return all the same
        ender = threading.Thread(target=w.end_turn)
        ender.start()
        ender.join(10)
        assert not ender.is_alive()
    s.close()


def test_queued_records_are_written_at_close(project: Path) -> None:
    s = open_session(project)
    w = s.writer
    assert w is not None and w.shadow is not None
    w.message(Message.user("go"))
    _tool_turn(w, project, 1)
    with w.shadow._lock:
        w.end_turn()
        w.message(Message("assistant", (TextBlock("done"),)))
    s.close()
    assert [r["type"] for r in _records(w)][-2:] == ["checkpoint", "message"]


def test_a_turn_of_read_only_tools_refreshes_the_index_for_the_first_change(project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    first = open_session(project)
    assert first.writer is not None
    asyncio.run(first.writer.checkpoint("toolu_0", "Bash"))
    first.close()  # the project's next session starts from this index
    for read_turn in (False, True):
        (project / "a.txt").write_text(f"changed since the last session ({read_turn})\n")
        s = open_session(project)
        w = s.writer
        assert w is not None and w.shadow is not None
        w.message(Message.user("go"))
        if read_turn:  # the model read a file, and is asked again: the refresh runs meanwhile
            w.message(Message("assistant", (ToolUseBlock("toolu_r", "Read", {"file_path": "a.txt"}),)))
            w.message(Message("user", (ToolResultBlock("toolu_r", "a"),)))
            w.end_turn()
            assert w.shadow.wait_warm(60)
        asyncio.run(w.checkpoint("toolu_1", "Edit"))
        w.flush()
        data = _records(w)[-1]["data"]
        assert data["phase"] == "before_tool" and data["hashed"] == (0 if read_turn else 1)
        stored = w.shadow._git("cat-file", "-p", f"{data['tree']}:a.txt").decode()
        assert stored == f"changed since the last session ({read_turn})\n"  # the tree as it is now
        s.close()


def test_copies_of_the_index_keep_the_time_git_wrote_it(project: Path) -> None:
    """git compares file times in whole seconds here. An entry written in the same second as its index is
    "racily clean": git checks its content, but only while the index file keeps the time git wrote it. The seed
    index used to be copied with a fresh mtime, which made a same-size change made in that second invisible to
    the next session: its checkpoint before an Edit recorded the content after the change was undone (seen in
    the 4-turn bench, which resets the file right after the previous run)."""
    import os

    (project / "a.txt").write_text("1\n")
    s = open_session(project)
    w = s.writer
    assert w is not None and w.shadow is not None
    asyncio.run(w.checkpoint("toolu_0", "Bash"))
    written = os.stat(w.shadow.index).st_mtime_ns
    s.close()
    seed = w.shadow.store / "last-index"
    assert os.stat(seed).st_mtime_ns == written
    again = open_session(project)
    assert again.writer is not None and again.writer.shadow is not None
    again.writer.shadow._ensure()  # the new session's index, seeded from the last one
    assert os.stat(again.writer.shadow.index).st_mtime_ns == written
    again.close()


def test_a_stopped_worker_finishes_its_jobs_and_refuses_new_ones() -> None:
    from agentcli.session.writer import _Worker

    worker = _Worker()
    gate = threading.Event()
    first = worker.submit(lambda: gate.wait(60))
    second = worker.submit(lambda: "after")
    worker.stop()
    gate.set()
    assert first.result(60) is True and second.result(60) == "after"  # submitted before stop: all run
    with pytest.raises(RuntimeError, match="stopped"):
        worker.submit(lambda: "too late")
    idle = _Worker()
    idle.stop()  # never started: stopping it starts nothing, and it refuses too
    with pytest.raises(RuntimeError):
        idle.submit(lambda: None)


def test_a_closed_writer_refuses_to_write_and_queues_nothing(project: Path) -> None:
    s = open_session(project)
    w = s.writer
    assert w is not None
    w.message(Message.user("go"))
    s.close()
    with pytest.raises(SessionError, match="closed"):
        w.message(Message.user("after close"))
    w.end_turn()  # nothing left to do: no fsync is queued (the stopped worker would refuse it)
    s.close()  # twice is fine


def test_a_full_disk_is_a_session_error_not_an_internal_one(tmp_path: Path) -> None:
    from agentcli.redact import Redactor

    w = SessionWriter(Path("/dev/full"), "s-full", redactor=Redactor())  # every write: ENOSPC
    with pytest.raises(SessionError, match="cannot write the session file") as caught:
        w.message(Message.user("hello"))
    assert caught.value.code == "session_error" and caught.value.hint == "is the disk full?"
    w.close()
