"""Runs the approval prompt standalone, for the pseudo-terminal tests: `python approval_driver.py ROOT REQUEST`.

REQUEST is JSON {"tool": …, "input": {…}, "reason": …} or {"plan": "…"}. The result is printed as one line
`RESULT {json}`; a remembered rule is passed to the real policy, as the loop does, so it lands in its file.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path

from agentcli.core.permissions import ApprovalRequest
from agentcli.permissions.loader import load_policy
from agentcli.ui.approval import TerminalApprover


async def main(root: Path, request: dict[str, object]) -> dict[str, object]:
    modes: list[str] = []
    approver = TerminalApprover(root, set_mode=modes.append)
    if "plan" in request:
        decision = await approver.review_plan(str(request["plan"]))
        return {**asdict(decision), "set_mode": modes}
    tool_input = request["input"]
    assert isinstance(tool_input, dict)
    req = ApprovalRequest("call_1", str(request["tool"]), tool_input, False, request.get("reason"))  # type: ignore[arg-type]
    approval = await approver.approve(req)
    if approval.behavior == "allow" and approval.remember:
        load_policy(root).remember(approval.remember, approval.scope or "session")
    return asdict(approval)


if __name__ == "__main__":
    result = asyncio.run(main(Path(sys.argv[1]), json.loads(sys.argv[2])))
    print("RESULT " + json.dumps(result), flush=True)
