"""The command line uses only typer's public names: nothing from `typer._…` (typer's own click included) or click's
private modules, in any import form (`from typer import _click` too, which a grep for `typer._` misses). typer is
then free to move its internals, and pyproject.toml needs no upper pin because of them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "agentcli"
WATCHED = ("typer", "click")


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
            if parts[0] in WATCHED and any(p.startswith("_") and not p.startswith("__") for p in parts[1:]):
                found.append(f"{node.lineno}: {name}")
    return found


def test_the_check_sees_every_import_form() -> None:
    source = ("from typer import _click as click\nimport typer._coercion\nfrom typer.core import _TyperParameter\n"
              "from click._compat import x\nfrom typer.core import TyperOption\nimport typer\n")
    assert _private_imports(source) == ["1: typer._click", "2: typer._coercion", "3: typer.core._TyperParameter",
                                        "4: click._compat", "4: click._compat.x"]


def test_agentcli_imports_no_private_name_of_typer_or_click() -> None:
    found = {str(f.relative_to(PACKAGE.parent)): hits for f in sorted(PACKAGE.rglob("*.py"))
             if (hits := _private_imports(f.read_text(encoding="utf-8")))}
    assert found == {}


def test_typer_is_not_pinned_below_a_release() -> None:
    import tomllib

    deps = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    (typer,) = [d for d in deps if d.startswith("typer")]
    assert "<" not in typer, typer
