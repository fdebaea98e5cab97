from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.tools.globmatch import compile_glob, expand_braces
from agentcli.tools.ignore import is_ignored, parse_gitignore, walk_files
from agentcli.tools.text import HeadTail, cap_head_tail, number_lines, split_lines


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/a.py", True),
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "src/x/y/a.ts", True),
        ("src/**/*.ts", "lib/a.ts", False),
        ("src/**", "src/x/y", True),
        ("**/*.{ts,tsx}", "a/b.tsx", True),
        ("**/*.{ts,tsx}", "a/b.js", False),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file10.txt", False),
        ("[ab]*.md", "b.md", True),
        ("[!ab]*.md", "b.md", False),
        ("*", ".hidden", True),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_matching(pattern: str, path: str, expected: bool) -> None:
    assert bool(compile_glob(pattern).match(path)) is expected


def test_brace_expansion() -> None:
    assert expand_braces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"]
    assert expand_braces("{x}") == ["{x}"]
    assert expand_braces("no{brace") == ["no{brace"]


def test_gitignore_rules() -> None:
    rules = parse_gitignore("# c\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.tmp\n", "")
    assert is_ignored("x/a.log", False, rules)
    assert not is_ignored("keep.log", False, rules)
    assert is_ignored("build", True, rules) and not is_ignored("build", False, rules)
    assert is_ignored("top.txt", False, rules) and not is_ignored("x/top.txt", False, rules)
    assert is_ignored("docs/a.tmp", False, rules) and not is_ignored("docs/x/a.tmp", False, rules)


def test_walk_honours_nested_gitignores(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.log\nout/\n")
    for rel in ["a.py", "x.log", "out/o.py", "sub/b.py", "sub/skip.me", "node_modules/m.js", ".git/HEAD"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "sub/.gitignore").write_text("*.me\n")
    assert sorted(walk_files(str(tmp_path))) == [".gitignore", "a.py", "sub/.gitignore", "sub/b.py"]


def test_split_and_number_lines() -> None:
    assert split_lines("a\r\nb\n") == ["a", "b"]
    assert split_lines("a\x0cb\u2028c") == ["a\x0cb\u2028c"]
    assert number_lines(["x", "y"], 9) == "     9\tx\n    10\ty"


def test_cap_head_tail() -> None:
    text = "".join(f"{i}\n" for i in range(1000))
    capped = cap_head_tail(text, 200)
    assert capped.startswith("0\n1\n") and capped.endswith("999\n")
    assert "lines omitted" in capped and len(capped) < 260
    assert cap_head_tail("short", 200) == "short"


def test_headtail_counts_dropped_lines() -> None:
    sink = HeadTail(keep=100)
    for i in range(10_000):
        sink.feed(f"{i}\n".encode())
    text = sink.text(100)
    assert text.startswith("0\n1\n") and text.endswith("9999\n")
    shown = text.count("\n") - 1  # the marker line adds one line break
    omitted = int(text.split("… ")[1].split(" lines")[0])
    assert shown + omitted == 10_000


def test_number_lines_beyond_the_prefix_cache() -> None:
    assert number_lines(["a", "b"], 99_999) == " 99999\ta\n100000\tb"
    assert number_lines(["z"], 2_000_000) == "2000000\tz"
    assert number_lines(["x" * 2001], 1).endswith("… [line truncated, 1 more chars]")
