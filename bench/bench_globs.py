"""Glob and .gitignore matching: the hand-written modules this project had (loaded from git history) against
wcmatch (globs) and pathspec (.gitignore) — speed and correctness, side by side.

    .venv/bin/python bench/bench_globs.py [--runs 5] [--tree .venv/lib]

Speed: matching every file of a real tree (the venv's lib, about 19,000 paths) against typical Glob patterns;
walking the same tree with a nested .gitignore (the fallback used when neither git nor rg can list files).
Correctness: glob edge cases with known answers; .gitignore cases with `git check-ignore` as the oracle.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "2bcca94"  # the last commit with the hand-written agentcli/tools/globmatch.py and ignore.py

PATTERNS = ["**/*.py", "**/*.{pyi,pyc}", "python3*/site-packages/rich/**/*.py", "*.txt", "**/[a-c]*.json"]
GLOB_CASES = [  # pattern, path, the right answer
    ("[]a]x", "]x", True), ("[!]]x", "ax", True), ("[[:digit:]]*.txt", "1a.txt", True), ("a//b", "a/b", True),
    ("*.py", "a.py\n", False), ("**/*.py", "a/b.py", True), ("a{b,c{d,e}}f", "acef", True), ("[a-]z", "-z", True),
    ("\\*.md", "*.md", True), ("*", ".hidden", True), ("src/**/*.ts", "src/a.ts", True), ("{x}", "{x}", True),
    ("{a,b}" * 12, "ab", "refused"),  # 4096 alternatives (2^n as n grows): refused, not expanded
]
GITIGNORE = "\n".join([
    "*.log", "!keep.log", "build/", "/top.txt", "docs/*.tmp", "**/cache/**", "a/**/b", "\\#hash", "trailing\\ ",
    "!/build/keep", "*.[oa]", "deep/**/x.md", "[[:digit:]]*.bak", "x[!]]y", "sp\\ ace", "**/", "!**/",
])
IGNORE_CASES = [
    ("x/a.log", False), ("keep.log", False), ("build", True), ("f/build", False), ("top.txt", False),
    ("x/top.txt", False), ("docs/a.tmp", False), ("docs/x/a.tmp", False), ("p/cache/q.py", False),
    ("a/b", True), ("a/x/y/b", True), ("#hash", False), ("trailing ", False), ("lib.o", False),
    ("lib.c", False), ("deep/x.md", False), ("deep/1/2/x.md", False), ("1.bak", False), ("x.bak", False),
    ("xay", False), ("x]y", False), ("sp ace", False), ("cache", True),
]


def old_module(name: str, path: str, extra: dict[str, types.ModuleType] | None = None) -> types.ModuleType:
    src = subprocess.run(["git", "show", f"{OLD_COMMIT}:{path}"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    for dotted, mod in (extra or {}).items():
        src = src.replace(f"from {dotted} import", f"from {mod.__name__} import")
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    exec(compile(src, path, "exec"), mod.__dict__)
    return mod


def best(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def tree_paths(tree: Path) -> list[str]:
    out = []
    for d, _, files in os.walk(tree):
        out.extend(os.path.relpath(os.path.join(d, f), tree) for f in files)
    return out


def glob_answer(compile_glob: Callable[[str], re.Pattern[str]], pattern: str, path: str) -> object:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return bool(compile_glob(pattern).match(path))
    except MemoryError:
        return "refused"
    except Exception as e:
        return "refused" if "cannot be used" in str(e) else f"error: {type(e).__name__}"


def git_ignored(cases: list[tuple[str, bool]]) -> set[str]:
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["git", "init", "-q", d], check=True)
        Path(d, ".gitignore").write_text(GITIGNORE + "\n")
        for rel, is_dir in cases:
            if is_dir:
                Path(d, rel).mkdir(parents=True, exist_ok=True)
        names = "\n".join(rel + "/" if is_dir else rel for rel, is_dir in cases)
        out = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=d, input=names,
                             capture_output=True, text=True, check=False).stdout
    return {line.rstrip("/") for line in out.splitlines()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", default=str(ROOT / ".venv" / "lib"))
    ns = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from agentcli.tools import globmatch as new_glob
    from agentcli.tools import ignore as new_ignore

    old_glob = old_module("old_globmatch", "agentcli/tools/globmatch.py")
    old_ignore = old_module("old_ignore", "agentcli/tools/ignore.py", {"agentcli.tools.globmatch": old_glob})
    paths = tree_paths(Path(ns.tree))
    print(f"load average {os.getloadavg()[0]:.2f}; {len(paths)} paths under {ns.tree}; median of {ns.runs}\n")
    print("| glob pattern | matches | hand-written (ms) | wcmatch (ms) |\n|---|---|---|---|")
    for p in PATTERNS:
        def run_old(p: str = p) -> int:
            r = old_glob.compile_glob.__wrapped__(p)
            return sum(1 for x in paths if r.match(x))

        def run_new(p: str = p) -> int:
            r = new_glob.compile_glob.__wrapped__(p)
            return sum(1 for x in paths if r.match(x))

        assert run_old() == run_new(), p
        print(f"| `{p}` | {run_new()} | {best(run_old, ns.runs):.1f} | {best(run_new, ns.runs):.1f} |")
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["cp", "-r", ns.tree, f"{d}/t"], check=True)
        Path(d, "t", ".gitignore").write_text("*.pyc\n__pycache__/\n")
        Path(d, "t", "python3.11", ".gitignore").write_text("*.so\n!_yaml*.so\ntests/\n")
        old_n = len(list(old_ignore.walk_files(f"{d}/t")))
        new_n = len(list(new_ignore.walk_files(f"{d}/t")))
        t_old = best(lambda: list(old_ignore.walk_files(f"{d}/t")), ns.runs)
        t_new = best(lambda: list(new_ignore.walk_files(f"{d}/t")), ns.runs)
    print(f"\n| .gitignore walk | files | hand-written (ms) | pathspec (ms) |\n|---|---|---|---|\n"
          f"| whole tree, 2 .gitignore files | {old_n} / {new_n} | {t_old:.0f} | {t_new:.0f} |")
    wrong_old = [(p, s) for p, s, want in GLOB_CASES if glob_answer(old_glob.compile_glob, p, s) != want]
    wrong_new = [(p, s) for p, s, want in GLOB_CASES if glob_answer(new_glob.compile_glob, p, s) != want]
    by_git = git_ignored(IGNORE_CASES)
    old_rules = old_ignore.parse_gitignore(GITIGNORE, "")
    new_rules = new_ignore.parse_gitignore(GITIGNORE, "")
    ign_old = [r for r, d in IGNORE_CASES if old_ignore.is_ignored(r, d, old_rules) != (r in by_git)]
    ign_new = [r for r, d in IGNORE_CASES if new_ignore.is_ignored(r, d, new_rules) != (r in by_git)]
    print(f"\n| correctness | hand-written wrong | library wrong |\n|---|---|---|\n"
          f"| {len(GLOB_CASES)} glob edge cases | {len(wrong_old)}: {[p[:12] for p, _ in wrong_old]} | "
          f"{len(wrong_new)}: {[p[:12] for p, _ in wrong_new]} |\n"
          f"| {len(IGNORE_CASES)} .gitignore cases vs `git check-ignore` | {len(ign_old)}: {ign_old} | "
          f"{len(ign_new)}: {ign_new} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
