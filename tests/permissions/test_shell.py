"""The shell parser and the wrapper unwrapping: which programs a command line runs."""

from __future__ import annotations

import shlex

import pytest

from agentcli.permissions.shell import ShellParseError, parse
from agentcli.permissions.unwrap import analyse


def programs(text: str) -> list[str]:
    return [p.text for p in analyse(text) if p.words]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("git status; rm -rf ~", ["git status", "rm -rf ~"]),
        ("a && b || c | d & e", ["a", "b", "c", "d", "e"]),
        ("a\nb", ["a", "b"]),
        ("(a; b) | c", ["a", "b", "c"]),
        ("{ a; b; }", ["a", "b"]),
        ("echo $(a $(b))", ["b", "a '$(b)'", "echo '$(a $(b))'"]),
        ("echo `a`", ["a", "echo '`a`'"]),
        ('echo "x $(a) y"', ["a", "echo 'x $(a) y'"]),
        ("diff <(a) <(b)", ["a", "b", "diff '<(…)' '<(…)'"]),
        ("bash -c 'a; b'", ["a", "b"]),
        ("sh -ec \"a && b\"", ["a", "b"]),
        ("env X=1 Y=2 a", ["X=1 Y=2 a"]),
        ("sudo -u root a b", ["a b"]),
        ("nice -n 5 timeout 10 a", ["a"]),
        ("xargs -0 -n1 a", ["a"]),
        ("xargs", ["echo"]),
        ("find . -exec a {} \\; -exec b {} +", ["a {}", "b {}", "find . -exec a {} ';' -exec b {} +"]),
        ("eval 'a; b'", ["a", "b"]),
        ("X=1 a", ["X=1 a"]),
        ("for f in $(a); do b $f; done", ["a", "b '$f'"]),
        ("while a; do b; done", ["a", "b"]),
        ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
        ("! a", ["a"]),
        ("a # b; c", ["a"]),
        ("'a b' c", ["'a b' c"]),
        ("a\\ b", ["'a b'"]),
        ("\"r\"m x", ["rm x"]),
        ("a 2>&1 >/dev/null", ["a"]),
        ("cat <<EOF\n$x ; b\nEOF\nc", ["cat", "c"]),
        ("cat <<-'EOF'\n\t$(b)\n\tEOF\nc", ["cat", "c"]),
        ("[[ -f a && -d b ]] && c", ["[[", "c"]),
        ("echo $'a\\nb'", ["echo 'a\nb'"]),
    ],
)
def test_programs(text: str, expected: list[str]) -> None:
    assert programs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "echo 'unterminated", 'echo "unterminated', "echo $(a", "echo `a", "(a", "a)", "case x in a) b;; esac",
        "f() { a; }", "echo ${x:-$(a)}", "echo $(( $(a) ))", "cat <<EOF\n$(a)\nEOF", "a \u200b b", "a\u00a0b",
        "a\rb", "a\x1bb", "echo " + "x" * 20_001, "a >", "function f { a; }",
    ],
)
def test_unparseable(text: str) -> None:
    with pytest.raises(ShellParseError):
        analyse(text)


def test_redirections_that_write() -> None:
    (cmd,) = parse("a > o1 2>> o2 &> o3 < i 2>&1 >/dev/null >| o4")
    writes = [r.target.text for r in cmd.redirects if r.writes and r.target]
    assert writes == ["o1", "o2", "o3", "/dev/null", "o4"]
    (part,) = analyse("a > o1 2>> o2 &> o3 < i 2>&1 >/dev/null >| o4")
    assert [w.text for w in part.writes] == ["o1", "o2", "o3", "o4"]
    assert [w.text for w in part.reads] == ["i"]


def test_words_know_what_is_dynamic() -> None:
    (cmd,) = parse("a $X '$Y' ~/f *.py \"$(b)\"")[-1:]
    flags = [(w.text, w.dynamic, w.glob, w.tilde) for w in cmd.words]
    assert flags == [
        ("a", False, False, False), ("$X", True, False, False), ("$Y", False, False, False),
        ("~/f", False, False, True), ("*.py", False, True, False), ("$(b)", True, False, False),
    ]


def test_wrapped_parts_keep_the_full_text() -> None:
    parts = analyse("sudo env X=1 rm -rf /")
    assert [(p.text, p.full_text, p.privileged) for p in parts] == [("X=1 rm -rf /", "sudo env X=1 rm -rf /", True)]
    (opaque,) = analyse("PATH=/tmp ls")
    assert opaque.opaque == "sets PATH"
    (computed,) = analyse("$CMD x")
    assert computed.opaque is not None


def test_nesting_is_bounded() -> None:
    deep = "echo " + "$(" * 40 + "a" + ")" * 40
    with pytest.raises(ShellParseError):
        analyse(deep)
    shells = "a"
    for _ in range(8):
        shells = f"bash -c {shlex.quote(shells)}"
    assert analyse(shells)[0].opaque is not None
