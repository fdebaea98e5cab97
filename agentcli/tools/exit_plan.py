"""ExitPlanMode(plan): the model's way out of plan mode. The tool only hands the plan over in
`metadata["plan"]`; the tool runner asks the front end's Approver about it (an `ApprovalRequest` of kind
"plan"): approved, the mode the person chose applies; sent back, the model reads their feedback. With nobody to
ask (headless), the plan is the run's result.
"""

from __future__ import annotations

from typing import Any

from agentcli.tools.base import ToolContext, ToolOutput
from agentcli.tools.specs import FromSpec


class ExitPlanModeTool(FromSpec, spec="ExitPlanMode"):
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        plan = str(args.get("plan", "")).strip()
        if not plan:
            return ToolOutput.error("ExitPlanMode needs a non-empty plan.")
        return ToolOutput(plan, display=plan, metadata={"plan": plan})
