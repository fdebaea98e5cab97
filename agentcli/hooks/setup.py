"""Building the session's hook runner from its settings layers."""

from __future__ import annotations

import re
import sys

from agentcli.core.permissions import Approver
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


def make_engine(settings: Settings, ctx: ToolContext, transcript_path: str | None,
                approver: Approver | None = None) -> tuple[HookEngine, list[str]]:
    specs, warnings = load_specs(settings)
    root = settings.project_root
    env = hook_env(ctx.env or {}, root, settings.secrets, SECRET_ENV_VARS)
    # Hooks run as the user, as Claude Code runs them (the project files they run are pinned instead, see
    # agentcli.hooks.scripts); `sandbox_hooks = true` confines them like Bash.
    sandbox = ctx.sandbox if settings.sandbox.hooks else None
    engine = HookEngine(specs, project_dir=root, cwd=settings.cwd, env=env, transcript_path=transcript_path,
                        redact=ctx.redact, sandbox=sandbox, approver=approver)
    return engine, warnings


def untrusted_scripts(settings: Settings) -> list[str]:
    """One line per configured hook that runs a project file not trusted as it is now (`agentcli doctor`)."""
    import os

    from agentcli.hooks.scripts import project_files
    from agentcli.settings import trust

    specs, _ = load_specs(settings)
    root = settings.project_root
    env = hook_env(dict(os.environ), root, (), ())
    lines: list[str] = []
    for spec in specs:
        changed = [str(f.relative_to(root)) for f in project_files(spec.command, root, env)
                   if not trust.script_pinned(root, f)]
        if changed:
            lines.append(f"{spec.event} hook {trust.printable(spec.command)!r} runs {', '.join(changed)}, not "
                         f"trusted as it is now: it will not run unasked (agentcli hooks trust)")
    return lines


def pin_scripts(settings: Settings) -> list[str]:
    """Trust the project files every configured hook runs as they are now (`agentcli hooks trust`, `hooks
    import`, `permissions trust`); returns their paths relative to the project. One that cannot be read as a
    regular file is not trusted, and said on stderr (its hook keeps asking)."""
    import os

    from agentcli.hooks.scripts import project_files
    from agentcli.settings import trust

    specs, _ = load_specs(settings)
    root = settings.project_root
    env = hook_env(dict(os.environ), root, (), ())
    files = list(dict.fromkeys(f for s in specs for f in project_files(s.command, root, env)))
    left = trust.pin(root, files)
    for f in left:
        sys.stderr.write(f"agentcli: not trusted: {trust.printable(str(f.relative_to(root)))} is not a readable "
                         "regular file\n")
    return [str(f.relative_to(root)) for f in files if f not in left]
