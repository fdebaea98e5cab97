from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.tools.globmatch import BadGlob, compile_glob
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
        ("[]a]x", "]x", True),
        ("[!]]x", "ax", True),
        ("[[:digit:]]*.txt", "1a.txt", True),
        ("a//b", "a/b", True),
        ("*.py", "a.py\n", False),
        ("a{b,c{d,e}}f", "acef", True),
        ("{x}", "{x}", True),
        ("no{brace", "no{brace", True),
    ],
)
def test_glob_matching(pattern: str, path: str, expected: bool) -> None:
    assert bool(compile_glob(pattern).match(path)) is expected


def test_brace_explosion_is_refused() -> None:
    with pytest.raises(BadGlob, match="cannot be used"):
        compile_glob("{a,b}" * 20)


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


GITIGNORE = "trailing\\ \n" + """\
# comment
*.log
!keep.log
build/
/top.txt
docs/*.tmp
**/cache/**
a/**/b
\\#hash
!/build/keep
*.[oa]
deep/**/x.md
"""
CANDIDATES = [
    ("x/a.log", False), ("keep.log", False), ("build", True), ("f/build", False), ("top.txt", False),
    ("x/top.txt", False), ("docs/a.tmp", False), ("docs/x/a.tmp", False), ("p/cache/q.py", False),
    ("a/b", True), ("a/x/y/b", True), ("#hash", False), ("trailing ", False), ("lib.o", False), ("lib.c", False),
    ("deep/x.md", False), ("deep/1/2/x.md", False), ("sub/build", True), ("cache", True),
]


def test_gitignore_matches_git_check_ignore(tmp_path: Path) -> None:
    """git itself is the oracle: every candidate is ignored by us exactly when `git check-ignore` says so."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(GITIGNORE)
    for rel, is_dir in CANDIDATES:
        (tmp_path / rel).mkdir(parents=True, exist_ok=True) if is_dir else None
    names = [rel + "/" if is_dir else rel for rel, is_dir in CANDIDATES]
    out = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=tmp_path, input="\n".join(names),
                         capture_output=True, text=True, check=False).stdout
    by_git = set(out.splitlines())
    rules = parse_gitignore(GITIGNORE, "")
    for (rel, is_dir), name in zip(CANDIDATES, names, strict=True):
        assert is_ignored(rel, is_dir, rules) is (name in by_git), name
