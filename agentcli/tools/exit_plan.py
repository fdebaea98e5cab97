"""ExitPlanMode(plan): the model's way out of plan mode. The tool only hands the plan over in
`metadata["plan"]`; the tool runner asks the front end's Approver about it (an `ApprovalRequest` of kind
"plan"): approved, the mode the person chose applies; sent back, the model reads their feedback. With nobody to
ask (headless), the plan is the run's result.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentcli.tools.base import ToolContext, ToolOutput


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
        return ToolOutput(plan, display=plan, metadata={"plan": plan})
