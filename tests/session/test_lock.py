from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentcli.errors import SessionLockedError
from agentcli.session import layout
from agentcli.session.reader import read_file
from agentcli.session.store import open_session
from tests.session.helpers import text_turn

HOLDER = """
import sys
from pathlib import Path
from agentcli.llm.messages import Message
from agentcli.session.store import open_session
s = open_session(Path(sys.argv[1]), resume=sys.argv[2])
for i in range(200):
    s.sink.message(Message.user(f"holder {i}"))
print("ready", flush=True)
sys.stdin.readline()
for i in range(200):
    s.sink.message(Message.user(f"holder late {i}"))
s.close()
"""


def test_second_process_gets_locked_error_and_lines_never_interleave(project: Path) -> None:
    s = open_session(project)
    assert s.writer is not None
    text_turn(s.writer, "hi", "there")
    s.close()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(project), s.session_id], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(SessionLockedError) as err:
            open_session(project, resume=s.session_id)
        assert "--fork-session" in err.value.one_line() and str(holder.pid) in err.value.message
        # The CLI reports it with the documented status.
        cli = subprocess.run([sys.executable, "-m", "agentcli", "sessions", "-C", str(project), "rename",
                              s.session_id, "x"], env=env, capture_output=True, text=True, check=False)
        assert cli.returncode == SessionLockedError.exit_status
        assert "[session_locked]" in cli.stderr
        # Forking a session in use is fine: it only reads.
        f = open_session(project, resume=s.session_id, fork_session=True)
        f.close()
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
        if holder.stdout is not None:
            holder.stdout.close()
    parsed = read_file(layout.session_file(layout.sessions_dir(project), s.session_id))
    assert not parsed.problems
    assert len(parsed.records) == 2 + 1 + 400  # turn, resumed, holder's lines
    # The lock died with the holder: resuming works again.
    open_session(project, resume=s.session_id).close()
