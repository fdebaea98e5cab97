"""Every event consumer is an exhaustive `match`: a new event type is a mypy error in each of them until handled.

The test adds one dummy stream event (agentcli/llm/stream.py) and one dummy agent event (agentcli/core/events.py)
to the unions, in shadow copies of those two files, and runs mypy on the consumers; each must fail at its
`assert_never`.
A second, static check finds consumers this list does not name: any `match` whose subject is typed as an
event union must end in `assert_never`.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import agentcli

PACKAGE = Path(agentcli.__file__).parent

# module → how many `assert_never` calls over events it holds
CONSUMERS = {
    "output/printers.py": 3,  # text, json, stream-json
    "output/partial.py": 1,  # the partial-message mapper
    "core/assemble.py": 1,  # the message builder
    "ui/render.py": 2,  # the renderer, and its view of a subagent's events
    "telemetry/recorder.py": 1,  # OpenTelemetry spans and metrics
}

def _dummy(name: str) -> str:
    return f"@dataclass(frozen=True, slots=True)\nclass {name}:\n    x: int\n"


def _add_to_union(source: str, union: str, name: str) -> str:
    found = re.search(union + r": TypeAlias = \(\n(.*?)\n\)", source, re.S)
    assert found, f"the {union} union is no longer declared as expected"
    return source.replace(found.group(0), _dummy(name) + "\n\n" + found.group(0)[:-2] + f"\n    | {name}\n)")


def test_a_new_event_type_fails_mypy_in_every_consumer(tmp_path: Path) -> None:
    """mypy reads the two widened modules from shadow copies (`--shadow-file`) and checks the five consumers in
    place, with the project's own configuration (pyproject.toml, as the gate) and a fresh cache in tmp_path. Run in
    the source tree, mypy follows the consumers' imports as far as their types need (a copy of the whole package
    with --no-incremental followed every lazy import too: 4× the CPU, and the 120 s timeout on a loaded machine).
    The cache starts as a copy of the gate's (below)."""
    stream = tmp_path / "stream.py"
    stream.write_text(_add_to_union((PACKAGE / "llm" / "stream.py").read_text(), "StreamEvent", "DummyStreamEvent"))
    events = tmp_path / "events.py"
    events.write_text(_add_to_union((PACKAGE / "core" / "events.py").read_text(), "AgentEvent", "DummyAgentEvent"))
    # Start from a copy of the cache the gate's mypy run just left (scripts/test runs it before pytest): mypy
    # checks each cached module against its source's hash, so the verdict is a cold run's, in a quarter of the
    # time (typeshed and the libraries' stubs are not analysed again). A copy, so the shadowed unions never
    # reach the project's cache.
    if (PACKAGE.parent / ".mypy_cache").is_dir():
        shutil.copytree(PACKAGE.parent / ".mypy_cache", tmp_path / "mypy-cache")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache"),
         "--shadow-file", "agentcli/llm/stream.py", str(stream),
         "--shadow-file", "agentcli/core/events.py", str(events),
         *(f"agentcli/{m}" for m in CONSUMERS)],
        cwd=PACKAGE.parent, capture_output=True, text=True, timeout=120,
    )
    errors = [line for line in proc.stdout.splitlines() if "assert_never" in line and "Dummy" in line]
    for module, count in CONSUMERS.items():
        hits = [e for e in errors if e.startswith(f"agentcli/{module}:")]
        assert len(hits) == count, f"{module}: expected {count} assert_never failures\n{proc.stdout}"
    assert len(errors) == sum(CONSUMERS.values()), proc.stdout


def _event_typed_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for arg in fn.args.args:
        if arg.annotation is not None and re.search(r"\b(AgentEvent|StreamEvent)\b", ast.unparse(arg.annotation)):
            names.add(arg.arg)
    return names


def test_every_match_over_events_ends_in_assert_never() -> None:
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "providers":
            continue  # transformers (text-call extraction) pass events they do not rewrite through, on purpose
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            typed = _event_typed_names(fn)
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Match) and isinstance(node.subject, ast.Name)):
                    continue
                if node.subject.id not in typed:
                    continue
                rel = path.relative_to(PACKAGE).as_posix()
                last = node.cases[-1]
                body = ast.unparse(last.body[0]) if last.body else ""
                assert ast.unparse(last.pattern) == "_" and body.startswith("assert_never("), (
                    f"{rel}:{node.lineno}: a match over events must end in `case _: assert_never(...)`"
                )
                found[rel] = found.get(rel, 0) + 1
    assert found == CONSUMERS
