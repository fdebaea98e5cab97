"""What `agentcli --model openai/fake-model` (the REPL) does before its prompt is first drawn, in one process and
without a terminal, for instruction counts (`bench/bench_ir.py --scenarios repl-start`): read argv, load the
settings, check the project's trust, import the REPL (prompt_toolkit) and make its prompt session. The first
key's echo (`bench/bench_repl.py startup`) adds the first draw and the terminal's round trip to this.

    PYTHONPATH=TREE .venv/bin/python bench/repl_start.py
"""

from __future__ import annotations

import gc
import os
from dataclasses import replace
from typing import Any

gc.disable()  # as agentcli/__main__.py does for start-up

try:
    from agentcli.cli.entry import _cwd, _untrusted, fast_values, settings_flags
except ImportError:  # a tree from before the cli/ room (911adbc)
    from agentcli.cli import _cwd, _untrusted, fast_values, settings_flags  # type: ignore[attr-defined,no-redef]
from agentcli.assembly.resumed import with_session_setup  # noqa: E402
from agentcli.settings.config import load_settings  # noqa: E402

values: Any = fast_values(["--model", "openai/fake-model"])
settings: Any = with_session_setup(load_settings(_cwd(values), settings_flags(values)))
_untrusted(settings)
if hasattr(settings, "permissions"):  # (sections since this landing: the REPL's default mode is auto)
    settings = replace(settings, permissions=replace(settings.permissions, fallback="auto"))

from agentcli import paths  # noqa: E402
from agentcli.ui.input import make_session  # noqa: E402
from agentcli.ui.repl import Repl  # noqa: E402

repl = Repl(settings)
history = paths.home() / "projects" / paths.project_slug(repl.root) / "history"
repl.session = make_session(history, repl.completer, repl.toolbar, repl.cycle_mode, repl.pastes)
os._exit(0)  # as agentcli ends: no interpreter teardown
