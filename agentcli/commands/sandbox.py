"""`agentcli sandbox run [--sandbox MODE] [--network] -- CMD…`: run any command under the sandbox the settings
configure (what Bash gets), with the same cleaned environment; `agentcli sandbox show`: what it allows."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from agentcli.commands import reporting_errors
from agentcli.sandbox import MODES


def main(argv: list[str]) -> int:
    ns = _parser().parse_args(argv)
    return reporting_errors(lambda: _run(ns) if ns.command == "run" else _show(ns))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agentcli sandbox", description="Run commands under agentcli's sandbox.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in (("run", "run a command under the sandbox (exit status: the command's)"),
                       ("show", "the mechanism, mode, and the paths it protects and hides")):
        s = sub.add_parser(name, help=text)
        s.add_argument("--sandbox", dest="sandbox_mode", choices=MODES, help="override the configured mode")
        s.add_argument("--network", action="store_true", default=None, help="allow the network")
        s.add_argument("--allow-host", action="append", metavar="HOST",
                       help="allow this host through the proxy (repeatable; *.domain for subdomains)")
        s.add_argument("--add-dir", dest="add_dirs", action="append", metavar="DIR", help="another writable dir")
        s.add_argument("-C", "--directory", help="the project directory (default: the current one)")
        if name == "run":
            s.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- CMD", help="the command and its arguments")
    return p


def _sandbox(ns: argparse.Namespace):  # type: ignore[no-untyped-def]
    from agentcli.sandbox import for_settings
    from agentcli.settings.config import load_settings

    cwd = Path(ns.directory).resolve() if ns.directory else Path.cwd()
    dirs = tuple(Path(d).expanduser().resolve() for d in ns.add_dirs) if ns.add_dirs else None
    settings = load_settings(cwd, {"sandbox_mode": ns.sandbox_mode, "add_dirs": dirs})
    if ns.network:
        settings = dataclasses.replace(settings, sandbox_network=True)
    if ns.allow_host:
        settings = dataclasses.replace(settings, sandbox_allowed_hosts=tuple(ns.allow_host))
    return settings, for_settings(settings)


def _run(ns: argparse.Namespace) -> int:
    from agentcli.errors import UsageError
    from agentcli.sandbox.env import child_env

    argv = ns.argv[1:] if ns.argv[:1] == ["--"] else ns.argv
    if not argv:
        raise UsageError("sandbox run needs a command", hint="agentcli sandbox run -- ls -la")
    settings, sandbox = _sandbox(ns)
    notice = sandbox.startup_notice()
    if notice:
        sys.stderr.write(f"agentcli: {notice}\n")
    wrapped, env = sandbox.wrap(argv, settings.cwd, child_env(os.environ, settings))
    sys.stdout.flush()
    try:
        if sandbox.serving:  # the allowlist proxy lives in this process: run the command as a child
            import subprocess

            return subprocess.run(wrapped, env=env, check=False).returncode
        os.execvpe(wrapped[0], wrapped, env)
    except OSError as err:
        raise UsageError(f"cannot run {wrapped[0]}: {err.strerror}", hint="check the command name") from err
    return 127  # not reached: exec replaced us


def _show(ns: argparse.Namespace) -> int:
    _, sandbox = _sandbox(ns)
    out = [f"sandbox: {sandbox.describe()}",
           "writable: " + (", ".join(str(p) for p in sandbox.spec.writable)
                           if sandbox.mode == "workspace-write" else "(none but a private /tmp)"),
           "read-only (configure execution): " + (", ".join(str(p) for p in sandbox.spec.protected()) or "-"),
           "unreadable: " + (", ".join(str(p) for p in sandbox.hidden()) or "-")]
    notice = sandbox.startup_notice()
    if notice:
        out.append(f"note: {notice}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
