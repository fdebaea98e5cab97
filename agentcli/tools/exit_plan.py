"""ExitPlanMode(plan): the model's way out of plan mode. It shows the plan and waits for the person's word.

With a reviewer in `ctx.state["plan_reviewer"]` (the REPL installs one), the person approves the plan and
picks the next mode, or sends it back with feedback. With none (headless), the plan is the result. Either
way the plan is returned in `metadata["plan"]` (the loop stores it in the session); an approval puts the
chosen mode in `metadata["mode"]`, which the loop applies to the policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from agentcli.tools.base import ToolContext, ToolOutput

REVIEWER_KEY = "plan_reviewer"


@dataclass(frozen=True, slots=True)
class PlanDecision:
    """The person's answer to a plan: approved with the mode to continue in, or feedback to keep planning."""

    approved: bool
    mode: str | None = None
    feedback: str | None = None


PlanReviewer = Callable[[str], Awaitable[PlanDecision]]


class ExitPlanModeTool:
    name: ClassVar[str] = "ExitPlanMode"
    description: ClassVar[str] = (
        "Call this when you are in plan mode and have finished planning: present your plan (markdown, concise, "
        "the steps you will take and the files you will change) for the user to approve. Do not call it to ask "
        "questions, and only after you have read what you need. After approval you may start making changes."
    )
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"plan": {"type": "string", "minLength": 1, "description": "The plan, in markdown"}},
        "required": ["plan"],
        "additionalProperties": False,
    }
    read_only: ClassVar[bool] = True
    destructive: ClassVar[bool] = False
    edits_files: ClassVar[bool] = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        plan = str(args.get("plan", "")).strip()
        if not plan:
            return ToolOutput.error("ExitPlanMode needs a non-empty plan.")
        reviewer = ctx.state.get(REVIEWER_KEY)
        if not callable(reviewer):
            return ToolOutput(plan, display=plan, metadata={"plan": plan})
        decision: PlanDecision = await reviewer(plan)
        if decision.approved:
            mode = decision.mode or "default"
            text = f"The user approved your plan. Permission mode is now {mode}. Start implementing it.\n\n{plan}"
            return ToolOutput(text, display=plan, metadata={"plan": plan, "approved": True, "mode": mode})
        feedback = decision.feedback or "(no feedback given)"
        text = f"The user did not approve the plan and wants you to keep planning. Their feedback: {feedback}"
        return ToolOutput(text, display=plan, metadata={"plan": plan, "approved": False, "feedback": feedback})
