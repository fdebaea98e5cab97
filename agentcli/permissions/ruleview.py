"""What the shell-command check (agentcli.permissions.bashcheck, .scope) reads of the policy: its mode, rules,
working directories and path rules. A Protocol here, below both, so the policy can hand itself to the check it
imports without the check importing the policy back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from agentcli.modes import PermissionMode
from agentcli.permissions.rules import Rule, RuleBehavior
from agentcli.tools.base import ToolContext


class RuleView(Protocol):
    """agentcli.permissions.policy.RulePolicy, as the Bash check sees it."""

    ctx: ToolContext
    rules: list[Rule]

    @property
    def mode(self) -> PermissionMode: ...

    def inside(self, path: Path) -> bool:
        """Whether a real path is inside the project or an added directory."""
        ...

    def path_rule(self, behavior: RuleBehavior, family: str, path: Path) -> Rule | None:
        """The first `behavior` rule of a file-tool family whose path specifier matches `path` or a parent."""
        ...

    def denied_matcher(self) -> tuple[Callable[[str], bool], dict[Any, Any]]:
        """Whether an absolute path is protected by a Read deny rule, and a cache for walks."""
        ...
