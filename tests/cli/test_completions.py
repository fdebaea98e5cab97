"""The committed completion scripts match what the CLI's parser generates (regenerate with
`python -m agentcli.completion SHELL > completions/agentcli.SHELL`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentcli.completion import GENERATORS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("shell", sorted(GENERATORS))
def test_committed_completion_is_current(shell: str) -> None:
    committed = (ROOT / "completions" / f"agentcli.{shell}").read_text()
    assert committed == GENERATORS[shell](), f"regenerate completions/agentcli.{shell}"


def test_every_flag_is_completed() -> None:
    from agentcli.cli import build_parser

    text = GENERATORS["bash"]()
    for action in build_parser()._actions:
        for s in action.option_strings:
            assert s in text


def test_bash_script_parses() -> None:
    subprocess.run(["bash", "-n", str(ROOT / "completions" / "agentcli.bash")], check=True)
