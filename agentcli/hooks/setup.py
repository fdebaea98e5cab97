"""Building the session's hook runner from its settings layers."""

from __future__ import annotations

import re

from agentcli.hooks.config import HookSpec, parse_hooks
from agentcli.hooks.engine import HookEngine
from agentcli.hooks.matcher import compile_matcher
from agentcli.hooks.process import hook_env
from agentcli.settings.config import SECRET_ENV_VARS, Settings
from agentcli.tools.base import ToolContext


def load_specs(settings: Settings) -> tuple[list[HookSpec], list[str]]:
    """Every configured hook, lowest layer first, and warnings about what was skipped."""
    specs: list[HookSpec] = []
    warnings: list[str] = []
    for source, table in settings.hooks.layers:
        found, skipped = parse_hooks(table, source)
        specs += found
        warnings += skipped
    for spec in specs:
        try:
            compile_matcher(spec.matcher)
        except re.error as err:
            warnings.append(f"{spec.source}: hooks.{spec.event} matcher {spec.matcher!r} is not a valid "
                            f"expression ({err}); it matches nothing")
    return specs, warnings


def make_engine(settings: Settings, ctx: ToolContext, transcript_path: str | None) -> tuple[HookEngine, list[str]]:
    specs, warnings = load_specs(settings)
    root = settings.project_root
    env = hook_env(ctx.env or {}, root, settings.secrets, SECRET_ENV_VARS)
    # Hooks run confined like Bash (their input is the model's), unless the user chose otherwise.
    sandbox = ctx.sandbox if settings.sandbox.hooks else None
    engine = HookEngine(specs, project_dir=root, cwd=settings.cwd, env=env, transcript_path=transcript_path,
                        redact=ctx.redact, wrap=sandbox.wrap if sandbox is not None else None)
    return engine, warnings
