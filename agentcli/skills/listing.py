"""What the model sees of the skills before it loads one: names and descriptions within a budget.

The listing goes in the `Skill` tool's description, as in Claude Code. `budget` is in characters (about four
to a token): each skill gets an even share for its description, cut with an ellipsis; past the budget, skills
are named without a description, and past twice the budget only counted (the model can still call them by a
name the user gives).
"""

from __future__ import annotations

from collections.abc import Sequence

from agentcli.skills.discovery import Skill

DEFAULT_BUDGET = 5_000
MIN_SHARE = 40


def listing(skills: Sequence[Skill], budget: int = DEFAULT_BUDGET) -> str:
    shown = [s for s in skills if s.model_invocable]
    if not shown:
        return ""
    share = max(MIN_SHARE, budget // len(shown) - 8)
    lines: list[str] = []
    used = 0
    for i, skill in enumerate(shown):
        text = skill.description if len(skill.description) <= share else skill.description[: share - 1] + "…"
        line = f"- {skill.name}: {text}" if used + share <= budget else f"- {skill.name}"
        if used + len(line) > 2 * budget:
            lines.append(f"- … and {len(shown) - i} more skills not listed")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
