"""The module list the start-up tests read from `python -v` (tests.cli.helpers.verbose_imports)."""

from __future__ import annotations

from tests.cli.helpers import verbose_imports


def test_a_report_another_thread_wrote_into_the_middle_of_a_line_is_still_read() -> None:
    # as recorded from a `-p` run with telemetry on, under load: the preload thread's import report landed between
    # the main thread's message and its newline (3 runs in 16 at `-n 4` lost opentelemetry.sdk.trace this way)
    stderr = ("import 'opentelemetry.sdk.trace.sampling' # <_frozen_importlib_external.SourceFileLoader object>\n"
              "# code object from '/w/agentcli/core/__pycache__/options.cpython-311.pyc'"
              "import 'opentelemetry.sdk.trace' # <_frozen_importlib_external.SourceFileLoader object>\n"
              "\n"
              "agentcli: a line of its own\n"
              "import 'agentcli.core.parts' # <_frozen_importlib_external.SourceFileLoader object>"
              "import 'opentelemetry.sdk.trace.export' # <_frozen_importlib_external.SourceFileLoader object>\n")
    assert verbose_imports(stderr) == {"opentelemetry.sdk.trace.sampling", "opentelemetry.sdk.trace",
                                       "agentcli.core.parts", "opentelemetry.sdk.trace.export"}
