"""Text tool-call extraction and `<think>` stripping: any chunking gives the same calls and text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.core.events import (
    MessageStop,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageReport,
)
from agentcli.llm.messages import Usage
from agentcli.providers.textcalls import TextCallFilter

TOOLS = ("Read", "Edit", "Bash")
Collapsed = list[tuple[str, Any]]


def run(chunks: list[str], tools: tuple[str, ...] = TOOLS) -> list[StreamEvent]:
    f = TextCallFilter(tools)
    out: list[StreamEvent] = []
    for c in chunks:
        out += f.feed(TextDelta(c))
    return out + f.finish()


def collapse(events: list[StreamEvent]) -> Collapsed:
    """Merge deltas; calls become (name, args) so ids and chunking do not matter."""
    out: Collapsed = []
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for e in events:
        match e:
            case TextDelta(t) | ThinkingDelta(t):
                kind = "text" if isinstance(e, TextDelta) else "think"
                if out and out[-1][0] == kind:
                    out[-1] = (kind, out[-1][1] + t)
                else:
                    out.append((kind, t))
            case ToolCallStart(i, _, name):
                names[i] = name
                args[i] = ""
            case ToolCallDelta(i, a):
                args[i] += a
            case ToolCallEnd(i):
                out.append(("call", (names[i], json.loads(args[i]))))
    return out


def split(s: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(s) + 1) for c in cuts})
    return [s[a:b] for a, b in zip([0, *points], [*points, len(s)], strict=True)]


# ---- examples ---------------------------------------------------------------------------------------------


def test_hermes_tool_call_and_think() -> None:
    call = '{"name": "Read", "arguments": {"path": "a.py"}}'
    s = f"<think>\nI should read it.</think>\n\nLet me look.\n<tool_call>\n{call}\n</tool_call>"
    assert collapse(run([s])) == [
        ("think", "I should read it."),
        ("text", "Let me look.\n"),
        ("call", ("Read", {"path": "a.py"})),
    ]


def test_every_byte_split() -> None:
    s = 'hi <think>x</think>ok <tool_call>{"name":"Bash","arguments":"{\\"command\\": \\"ls\\"}"}</tool_call>'
    want = collapse(run([s]))
    assert want == [("text", "hi "), ("think", "x"), ("text", "ok "), ("call", ("Bash", {"command": "ls"}))]
    assert collapse(run(list(s))) == want


def test_function_tag_json_and_parameters() -> None:
    s = (
        '<function=Read>{"path": "x"}</function>'
        "<tool_call>\n<function=Edit>\n<parameter=path>\nx.py\n</parameter>\n<parameter=count>\n3\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    assert collapse(run(list(s))) == [
        ("call", ("Read", {"path": "x"})),
        ("call", ("Edit", {"path": "x.py", "count": 3})),
    ]


def test_bare_json_only_for_known_tools_at_line_start() -> None:
    s = (
        '{"name": "Read", "parameters": {"path": "é.txt"}}\nsee {"name": "Read", "arguments": {}}\n'
        '{"name": "Nope", "arguments": {}}'
    )
    assert collapse(run(list(s))) == [
        ("call", ("Read", {"path": "é.txt"})),
        ("text", 'see {"name": "Read", "arguments": {}}\n{"name": "Nope", "arguments": {}}'),
    ]


def test_no_tools_means_no_bare_json() -> None:
    s = '{"name": "Read", "arguments": {}}'
    assert collapse(run([s], tools=())) == [("text", s)]


def test_malformed_tags_stay_text() -> None:
    for s in (
        "<tool_call>not json</tool_call> after",
        '<tool_call>{"name": 1}</tool_call>',
        "<function=>{}</function>",
        "<function=Read>oops</function>",
        "a < b and c<d> and <think",
        '<tool_call>{"name": "Read"',
        "{ not json at all",
    ):
        assert collapse(run(list(s))) == [("text", s)], s


def test_unterminated_call_at_end_is_still_a_call() -> None:
    s = '<tool_call>{"name": "Read", "arguments": {"path": "a"}}</tool_c'
    assert collapse(run(list(s))) == [("call", ("Read", {"path": "a"}))]


def test_unterminated_think_is_all_thinking() -> None:
    assert collapse(run(["<think>still going</thi"])) == [("think", "still going</thi")]


def test_message_stop_flushes_and_becomes_tool_use() -> None:
    f = TextCallFilter(TOOLS, id_factory=lambda n: f"id{n}")
    out = f.feed(TextDelta('<tool_call>{"name":"Read","arguments":{}}'))
    out += f.feed(UsageReport(Usage(1, 2)))
    out += f.feed(MessageStop("end_turn", "m"))
    assert out[-1] == MessageStop("tool_use", "m")
    assert ToolCallStart(0, "id0", "Read") in out
    assert f.finish() == []


def test_native_calls_pass_through_with_their_own_index() -> None:
    f = TextCallFilter(TOOLS)
    out = f.feed(TextDelta('<tool_call>{"name":"Read","arguments":{}}</tool_call>'))
    out += f.feed(ToolCallStart(0, "native", "Bash"))
    out += f.feed(ToolCallDelta(0, "{}"))
    out += f.feed(ToolCallEnd(0))
    starts = [e for e in out if isinstance(e, ToolCallStart)]
    assert [(s.index, s.name) for s in starts] == [(0, "Read"), (1, "Bash")]
    assert ToolCallEnd(1) in out


# ---- properties -------------------------------------------------------------------------------------------

_plain = st.text(alphabet="ab <>}{\n=/é日", min_size=1, max_size=12).filter(lambda s: not s[0].isspace())
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\{}<>/ é\n', max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text("kv", max_size=3), kids, max_size=3),
    max_leaves=6,
)
_args = st.dictionaries(st.text(alphabet="pqé", min_size=1, max_size=4), _json_values, max_size=3)


@st.composite
def segments(draw: st.DrawFn) -> tuple[str, Collapsed]:
    """A valid stream as one string, and what the filter must make of it."""
    parts: list[str] = []
    want: Collapsed = []
    strip_next = False

    def text(t: str) -> None:
        nonlocal strip_next
        t = t.lstrip() if strip_next else t
        if t:
            strip_next = False
            if want and want[-1][0] == "text":
                want[-1] = ("text", want[-1][1] + t)
            else:
                want.append(("text", t))

    for kind in draw(
        st.lists(st.sampled_from(["text", "think", "tagged", "func", "bare", "qwen"]), max_size=6)
    ):
        if kind == "text":
            t = draw(_plain)
            parts.append(t)
            text(t)
            continue
        if kind == "think":
            t = draw(_plain)
            parts.append(f"<think>{t}</think>")
            if want and want[-1][0] == "think":
                want[-1] = ("think", want[-1][1] + t)
            else:
                want.append(("think", t))
            strip_next = True
            continue
        name = draw(st.sampled_from(TOOLS))
        args = draw(_args)
        body = json.dumps({"name": name, "arguments": args}, ensure_ascii=draw(st.booleans()))
        if kind == "tagged":
            parts.append(f"<tool_call>\n{body}\n</tool_call>")
        elif kind == "func":
            parts.append(f"<function={name}>{json.dumps(args)}</function>")
        elif kind == "bare":
            parts.append("\n" + body)
            text("\n")
        else:
            args = {k: "ab" * len(k) for k in args}
            params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in args.items())
            parts.append(f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
        want.append(("call", (name, args)))
        strip_next = True
    return "".join(parts), want


@settings(max_examples=200, deadline=None)
@given(segments(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_any_chunking_gives_the_same_calls_and_text(case: tuple[str, Collapsed], cuts: list[int]) -> None:
    stream, want = case
    assert collapse(run([stream])) == want
    assert collapse(run(split(stream, cuts))) == want


_PIECES = [
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<function=Read>",
    "</function>",
    '{"name": "Read", "arguments": ',
    "{",
    "}",
    '"',
    "\n",
    "x",
    "<",
    ">",
    " ",
    "\\",
    "<parameter=a>",
    "</parameter>",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=30).map("".join),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
)
def test_garbage_never_crashes_and_chunking_does_not_matter(stream: str, cuts: list[int]) -> None:
    whole = collapse(run([stream]))
    assert collapse(run(split(stream, cuts))) == whole
    assert collapse(run(list(stream))) == whole
