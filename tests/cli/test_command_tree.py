"""The command tree typer builds: help, subcommands imported only when named, one-line usage errors, Claude
Code's flag shapes, and the typer-free `-p` reader agreeing with typer on every argv."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.cli.app import dispatch
from agentcli.cli.entry import fast_values, settings_flags
from agentcli.cli.flags import fast_parse
from agentcli.cli.table import ROOT_FLAGS, SUBCOMMANDS
from tests.cli.helpers import ANTHROPIC, agentcli, imported_modules, provider_env
from tests.fakes import FakeLLM, Reply


def _typer_values(argv: list[str]) -> dict[str, Any]:
    outcome = dispatch(argv)
    assert isinstance(outcome, dict), outcome
    return {k: v for k, v in outcome.items() if v is not None and v is not False}


def _fast(argv: list[str]) -> dict[str, Any]:
    values = fast_values(argv)
    assert values is not None, argv
    return {k: v for k, v in values.items() if v is not None}


def test_help_lists_commands_panels_and_examples(tmp_path: Path) -> None:
    run = agentcli(["--help"], tmp_path, {"COLUMNS": "120"})
    assert run.status == 0 and run.stderr == ""
    for name in SUBCOMMANDS:
        assert name in run.stdout
    for panel in ("Arguments", "Run", "Model", "Permissions", "Context", "Session", "Limits", "Examples",
                  "Exit statuses"):
        assert f"\n{panel}:\n" in run.stdout
    assert "--allowedTools" in run.stdout and "agentcli -c" in run.stdout


def test_help_imports_no_subcommand_module_and_a_subcommand_imports_only_its_own(tmp_path: Path) -> None:
    probe = ("import sys, contextlib, io\n"
             "from agentcli.cli.entry import run\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    run(sys.argv[1:])\n"
             "print(sorted(m for m in list(sys.modules) if m.startswith('agentcli.commands.')))\n")
    out = subprocess.run([sys.executable, "-c", probe, "--help"], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1]
    assert out == "[]"
    out = subprocess.run([sys.executable, "-c", probe, "presets", "list"], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    assert out == "['agentcli.commands.presets']"


@pytest.mark.parametrize(("argv", "line"), [
    (["--bogus"], "agentcli: no such option --bogus"),
    (["--modle", "x"], "agentcli: no such option --modle (did you mean --model?) [usage]"),
    (["-p", "hi", "--allowed-tool", "Read"], "(did you mean --allowed-tools?) [usage]"),
    (["-p", "hi", "--output-format", "yaml"], "agentcli: invalid choice for --output-format: 'yaml' (choose from "
                                              "text, json, stream-json) [usage]"),
    (["--permission-mode", "acceptedits"], "invalid choice for --permission-mode: 'acceptedits' (did you mean "
                                           "acceptEdits?) [usage]"),
    (["-p", "hi", "--max-turns", "many"], "agentcli: invalid value for --max-turns"),
    (["-p", "hi", "--max-turns"], "agentcli: option --max-turns requires a value [usage]"),
    (["-p", "one", "two"], "agentcli: got unexpected extra argument"),
    (["sessions", "list", "--jsn"], "agentcli sessions: no such option --jsn (did you mean --json?) [usage]"),
    (["sessions", "lst"], "agentcli sessions: no such command 'lst' (did you mean 'list'?) [usage]"),
    (["sessions"], "agentcli sessions: missing command [usage]"),
    (["presets", "show"], "agentcli presets: missing argument 'PRESET' [usage]"),
])
def test_usage_errors_are_one_line_with_a_code_and_exit_2(tmp_path: Path, argv: list[str], line: str) -> None:
    run = agentcli(argv, tmp_path, {})
    assert run.status == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.rstrip().endswith("[usage]"), run.stderr
    assert line in run.stderr


def test_version_and_subcommand_help(tmp_path: Path) -> None:
    assert agentcli(["-p", "--version"], tmp_path, {}).stdout.endswith("(agentcli)\n")
    run = agentcli(["sessions", "rewind", "--help"], tmp_path, {"COLUMNS": "120"})
    assert run.status == 0 and "--conversation" in run.stdout and "SESSION" in run.stdout


@pytest.mark.parametrize(("argv", "expected"), [
    (["-p", "x", "--allowedTools", "Read", "Bash(git diff:*)"], ("Read", "Bash(git diff:*)")),
    (["-p", "x", "--allowedTools", "Read,Edit"], ("Read", "Edit")),
    (["-p", "x", "--allowedTools", "Read", "--allowed-tools", "Edit", "Glob"], ("Read", "Edit", "Glob")),
    (["--allowedTools=Read", "-p", "x"], ("Read",)),
    (["-p", "--allowedTools", "Read", "Edit", "x"], ("Read", "Edit", "x")),  # Claude Code's greedy list, as before
])
def test_allowed_tools_keep_claude_codes_shapes(argv: list[str], expected: tuple[str, ...]) -> None:
    for values in (_fast(argv), _typer_values(argv)):
        assert settings_flags(values)["allowed_tools"] == expected


@pytest.mark.parametrize(("argv", "resume", "prompt"), [
    (["-r"], "", None),
    (["-r", "-p"], "", None),
    (["--resume", "abc", "-p", "go"], "abc", "go"),
    (["-r", "abc", "go"], "abc", "go"),
    (["-rabc"], "abc", None),
    (["--resume="], "", None),
])
def test_resume_takes_an_optional_value(argv: list[str], resume: str, prompt: str | None) -> None:
    values = _typer_values(argv)
    assert values["resume"] == resume and values.get("prompt") == prompt


def test_short_flags_cluster_and_dangerous_switch() -> None:
    values = _typer_values(["-pc", "--dangerously-skip-permissions", "-nname"])
    flags = settings_flags(values)
    assert values["print_mode"] and flags["continue_"] is True and flags["name"] == "name"
    assert flags["permission_mode"] == "bypassPermissions"


def test_words_that_argparse_took_as_values_still_are() -> None:
    assert _typer_values(["-p", "- fix the list"])["prompt"] == "- fix the list"
    assert _typer_values(["--max-budget-usd", "-1", "-p", "-5"]) == {"max_budget_usd": -1.0, "print_mode": True,
                                                                      "prompt": "-5"}
    assert _fast(["-p", "--allowedTools", "Bash(rm -rf /tmp/x)", "-"]) == {
        "print_mode": True, "allowed_tools": ["Bash(rm -rf /tmp/x)", "-"]}


def test_a_module_with_only_main_argv_still_runs_as_a_subcommand() -> None:
    """A subcommand written before the typer tree (`main(argv) -> int`, its own parser) runs unchanged."""
    import types

    from agentcli.cli.app import invoke, load_subcommand

    module = types.ModuleType("agentcli.commands.legacy_demo")
    module.main = lambda argv: len(argv)  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        assert invoke(load_subcommand("legacy_demo"), ["a", "--b", "-h"], "agentcli legacy_demo") == 3
    finally:
        del sys.modules[module.__name__]


def test_a_new_root_flag_is_one_table_entry() -> None:
    """One `flag(…)` gives the option to typer (help, panel, checks), to the typer-free reader and to completion."""
    import typer

    from agentcli.cli.app import build_app, invoke
    from agentcli.cli.flags import flag

    extra = (*ROOT_FLAGS, flag("--mcp-demo", kind="append", metavar="FILE", panel="Context", help="demo servers"))
    argv = ["--mcp-demo", "a.json", "--mcp-demo=b.json", "-p", "go"]
    values = invoke(typer.main.get_command(build_app(extra)), list(argv), "agentcli")
    assert values["mcp_demo"] == ["a.json", "b.json"] == fast_parse(argv, extra).values["mcp_demo"]
    assert settings_flags(values)["mcp_demo"] == ("a.json", "b.json")


def test_a_subcommand_name_after_the_first_word_is_the_prompt() -> None:
    assert _typer_values(["--model", "m", "sessions"])["prompt"] == "sessions"
    assert _typer_values(["--", "sessions"])["prompt"] == "sessions"


def test_only_help_errors_and_subcommands_need_typer() -> None:
    assert fast_values(["--model", "m", "-c", "go on"]) == {"model": "m", "continue_": True, "prompt": "go on"}
    for argv in (["--help"], ["-p", "--version"], ["--bogus"], ["a", "b"], ["sessions", "list"], ["-p", "--model"]):
        assert fast_values(argv) is None, argv


def test_headless_runs_do_not_import_typer(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.push(Reply(text="done"))
    args = ["-p", "hi", "--model", ANTHROPIC, "--allowedTools", "Read", "Edit", "--max-turns", "3"]
    imported = imported_modules(args, tmp_path, provider_env(fake_llm, ANTHROPIC))
    # (click itself may load: `import httpx` pulls in click when it is installed, for httpx's own CLI.)
    assert "agentcli.cli.entry" in imported and not {m for m in imported if m.startswith(("typer", "pydantic"))}


def _word(f: Any) -> st.SearchStrategy[list[str]]:
    """One occurrence of flag `f` in one of the shapes a user may write it."""
    name = st.sampled_from(f.names)
    value: st.SearchStrategy[str]
    if f.choices:
        value = st.sampled_from(f.choices)
    elif f.type is int:
        value = st.integers(0, 99).map(str)
    elif f.type is float:
        value = st.sampled_from(["0.5", "3", "1e2"])
    else:
        value = st.text("abcR,(*:)= -", min_size=1, max_size=6).filter(lambda t: not t.startswith("-"))
    if f.kind == "switch":
        return name.map(lambda n: [n])
    if f.kind == "optional":
        return st.one_of(name.map(lambda n: [n]), st.tuples(name, value).map(list))
    if f.kind == "many":
        return st.tuples(name, st.lists(value, min_size=1, max_size=3)).map(lambda t: [t[0], *t[1]])
    long = f.long
    return st.one_of(st.tuples(name, value).map(list), value.map(lambda v: [f"{long}={v}"]))


PARSEABLE = [f for f in ROOT_FLAGS if f.kind not in ("help", "version")]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(PARSEABLE).flatmap(_word), max_size=6),
       st.one_of(st.none(), st.text("abc xyz", min_size=1, max_size=8)), st.booleans())
def test_fast_reader_and_typer_agree(words: list[list[str]], prompt: str | None, headless: bool) -> None:
    argv = [*(["-p"] if headless else []), *[w for group in words for w in group]]
    if prompt is not None:
        argv += ["--", prompt]
    fast = fast_parse(argv, ROOT_FLAGS)
    through_typer = _typer_values(argv)
    assert settings_flags({**fast.values}) == settings_flags(through_typer)
    assert (fast.positionals[0] if fast.positionals else None) == through_typer.get("prompt")


def test_choices_written_as_literals_match_their_source() -> None:
    from typing import get_args

    from agentcli.commands.sandbox import Mode
    from agentcli.commands.usage import Group
    from agentcli.sandbox import MODES
    from agentcli.session.ledger import GROUPS

    assert get_args(Group) == GROUPS and get_args(Mode) == MODES
    assert next(f for f in ROOT_FLAGS if f.long == "--sandbox").choices == MODES


def test_each_command_summary_names_only_its_own_commands() -> None:
    """The root help's one-line summaries (`mcp: add, list, get and remove …`) use the command names the group
    has: a verb another group has (`show`, `remove`) but this one does not would send the user to a usage error."""
    import re

    from agentcli.cli.app import load_subcommand

    groups = {n: set(getattr(load_subcommand(n), "commands", {})) for n in SUBCOMMANDS}
    verbs = set().union(*groups.values())
    for name, summary in SUBCOMMANDS.items():
        if groups[name]:
            assert set(re.findall(r"[a-z][a-z-]*", summary)) & verbs <= groups[name], (name, summary)
