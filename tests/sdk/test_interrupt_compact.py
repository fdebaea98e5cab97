"""`interrupt` during `/compact` in a stream-json session: the compaction stops as a turn does (through the
session's driver), a result line still ends it, and the session goes on."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.script import Fault, Reply
from tests.fakes.server import FakeLLM
from tests.sdk.helpers import make_sdk, raw, user


def is_result(line: dict[str, object]) -> bool:
    return line.get("type") == "result"


def test_an_interrupted_compact_ends_with_a_result_and_the_session_goes_on(tmp_path: Path,
                                                                          fake_llm: FakeLLM) -> None:
    sdk = make_sdk(tmp_path, fake_llm)
    fake_llm.push(Reply(text="Noted: heron."),
                  Reply(text="Summary.", fault=Fault("slow_first_byte", delay_s=120)),  # the summariser hangs
                  Reply(text="Still here."))
    session = raw(sdk)
    session.send(user("the codename is heron"))
    assert not session.read_until(is_result)[-1]["is_error"]
    session.send(user("/compact"))
    assert fake_llm.wait_for_requests(2, 30), "the summariser was not asked"
    session.send({"type": "control_request", "request_id": "stop", "request": {"subtype": "interrupt"}})
    stopped = session.read_until(is_result)[-1]
    assert stopped["is_error"] and stopped["errors"] == ["[Request interrupted by user]"]
    session.send(user("still there?"))
    assert session.read_until(is_result)[-1]["result"] == "Still here."
    status, _, err = session.finish()
    assert status == 0, err
