"""`agentcli usage [--since 7d] [--by day|project|model|provider] [--json]`: tokens and cost over time, from the
session files (agentcli.session.ledger), as a table with a bar chart that fits the terminal."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from agentcli.commands import reporting_errors
from agentcli.errors import UsageError
from agentcli.session.ledger import GROUPS, Row


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="agentcli usage", description="Tokens and cost of your sessions, all projects.")
    p.add_argument("--since", help="only requests since then: 7d, 24h, 90m, 2w or a date (2026-11-01)")
    p.add_argument("--by", choices=GROUPS, default="day", help="group by day (default), project, model or provider")
    p.add_argument("--json", action="store_true", help="rows and total as JSON")
    ns = p.parse_args(argv)
    return reporting_errors(lambda: _run(ns.since, ns.by, ns.json))


def _run(since: str | None, by: str, as_json: bool) -> int:
    from agentcli.session.ledger import entries, parse_since, summarize

    try:
        rows, total = summarize(entries(parse_since(since)), by)
    except ValueError as err:
        raise UsageError(str(err)) from err
    if as_json:
        sys.stdout.write(json.dumps({"by": by, "since": since, "rows": [r.to_dict() for r in rows],
                                     "total": total.to_dict()}, indent=2) + "\n")
        return 0
    render(rows, total, by, sys.stdout)
    return 0


def render(rows: list[Row], total: Row, by: str, out: TextIO, width: int | None = None) -> None:
    """The table with a bar per row: of cost, or of tokens where nothing cost anything (local models)."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, width=width, highlight=False)
    if not rows:
        console.print("No model requests recorded in that period.")
        return
    by_cost = total.cost_usd > 0
    peak = max((r.cost_usd if by_cost else r.tokens) for r in rows) or 1
    # What the other columns take (widest cell, or the total's), with two spaces between columns.
    key_w = max(len(by), len("total"), *(len(r.key) for r in rows))
    others = key_w + len(str(total.requests)) + 2 * 6 + len(f"${total.cost_usd:,.2f}") + 2 * 5
    bar_width = max(4, min(60, console.width - others - 1))
    table = Table(box=None, pad_edge=False, show_footer=True, header_style="bold")
    table.add_column(by, footer="total", no_wrap=True)
    table.add_column("reqs", justify="right", footer=str(total.requests))
    table.add_column("in", justify="right", footer=_tokens(total.input_tokens + total.cache_read_tokens
                                                            + total.cache_write_tokens))
    table.add_column("out", justify="right", footer=_tokens(total.output_tokens))
    table.add_column("cost", justify="right", footer=f"${total.cost_usd:,.2f}")
    table.add_column("", no_wrap=True, min_width=bar_width)
    for r in rows:
        value = r.cost_usd if by_cost else r.tokens
        table.add_row(r.key, str(r.requests), _tokens(r.input_tokens + r.cache_read_tokens + r.cache_write_tokens),
                      _tokens(r.output_tokens), f"${r.cost_usd:,.2f}", _bar(value / peak, bar_width))
    console.print(table)


def _bar(fraction: float, width: int) -> str:
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + (" ▏▎▍▌▋▊▉"[rest] if rest else "")


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)
