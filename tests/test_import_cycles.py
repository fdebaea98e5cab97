"""No import circles among agentcli's modules: every import counts (module level, inside functions, under
`TYPE_CHECKING`), so a module never imports one that imports it back, directly or through others.

`python tests/test_import_cycles.py` prints the circles that remain, one per line."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agentcli"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """The agentcli modules `path` imports anywhere in it. `from a import b` counts `a.b` when that is a module,
    else `a`; a package's `__init__` is not counted for its submodules (importing `a.b` runs `a`, but `a` is
    a namespace here, never a participant, unless it imports `a.b` back)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "agentcli")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            if base.split(".")[0] != "agentcli":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(files)
    return {name: imports_of(path, name, known) for name, path in files.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(g[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_checker_finds_a_circle_through_a_function_level_import(tmp_path: Path) -> None:
    g = {"agentcli.a": {"agentcli.b"}, "agentcli.b": {"agentcli.c"}, "agentcli.c": {"agentcli.a"}, "agentcli.d": set()}
    assert cycles(g) == [["agentcli.a", "agentcli.b", "agentcli.c"]]
    mod = tmp_path / "m.py"
    mod.write_text("def f():\n    from agentcli.core import loop\nif TYPE_CHECKING:\n    import agentcli.llm\n")
    known = {"agentcli.core.loop", "agentcli.llm", "agentcli.core"}
    assert imports_of(mod, "agentcli.x", known) == {"agentcli.core.loop", "agentcli.llm"}


def test_no_import_circles_among_agentcli_modules() -> None:
    found = cycles(graph())
    assert not found, "import circles:\n" + "\n".join(" ↔ ".join(c) for c in found)


if __name__ == "__main__":
    for c in cycles(graph()):
        sys.stdout.write(" ↔ ".join(c) + "\n")
