"""agentcli uses only the public names of the packages it depends on: nothing from `typer._…` (typer's own click
included), click's, mcp's or httpcore's private modules, in any import form (`from typer import _click` too, which a
grep for `typer._` misses). Those packages are then free to move their internals, and pyproject.toml needs no upper
pin because of them. The standard library is not watched."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "agentcli"

def _watched(top: str) -> bool:
    return top != "agentcli" and top not in sys.stdlib_module_names


def _private_imports(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for name in names:
            parts = name.split(".")
            if _watched(parts[0]) and any(p.startswith("_") and not p.startswith("__") for p in parts[1:]):
                found.append(f"{node.lineno}: {name}")
    return found


def test_the_check_sees_every_import_form() -> None:
    source = ("from typer import _click as click\nimport typer._coercion\nfrom typer.core import _TyperParameter\n"
              "from click._compat import x\nfrom typer.core import TyperOption\nimport typer\n"
              "import mcp.client._x\nfrom asyncio import base_events\nimport _thread\n"
              "from httpx import (\n    Client,\n    _auth)\n")
    assert _private_imports(source) == ["1: typer._click", "2: typer._coercion", "3: typer.core._TyperParameter",
                                        "4: click._compat", "4: click._compat.x", "7: mcp.client._x",
                                        "10: httpx._auth"]


def test_agentcli_imports_no_private_name_of_another_package() -> None:
    # A private name in an import follows `.`, `import ` or (in a list) `,`/`(` and white space: only files with
    # one of those are parsed (walking all ~300 cost seconds under load).
    sources = {f: f.read_text(encoding="utf-8") for f in sorted(PACKAGE.rglob("*.py"))}
    found = {str(f.relative_to(PACKAGE.parent)): hits for f, text in sources.items()
             if re.search(r"\._|import\s+_|[,(]\s*_\w", text) and (hits := _private_imports(text))}
    assert found == {}


def test_typer_is_not_pinned_below_a_release() -> None:
    import tomllib

    deps = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (typer,) = [d for d in deps if d.startswith("typer")]
    assert "<" not in typer, typer
