"""Wrappers' options are read as getopt reads them wherever the wrapped command is looked for: a clustered short
option that takes a value (`flock -nw 5`) or a long one by its prefix (`timeout --sig KILL`) must not make the
policy take the option's value, or the wrapper's own argument, for the command that runs."""

from __future__ import annotations

import pytest

from agentcli.permissions.unwrap import analyse


@pytest.mark.parametrize(("command", "runs"), [
    ("flock -nw 5 /tmp/lock rm -rf x", ["rm", "-rf", "x"]),
    ("flock --timeout=5 /tmp/lock rm x", ["rm", "x"]),
    ("timeout --sig KILL 5 rm x", ["rm", "x"]),
    ("timeout -sKILL 5 rm x", ["rm", "x"]),
    ("watch --inter 2 rm x", ["rm", "x"]),
])
def test_the_wrapped_command_is_found_however_the_options_are_spelled(command: str, runs: list[str]) -> None:
    assert [[w.text for w in p.words] for p in analyse(command)] == [runs]
