"""`agentcli sandbox run [--sandbox MODE] [--network] -- CMD…`: run any command under the sandbox the settings
configure (what Bash gets), with the same cleaned environment; `agentcli sandbox show`: what it allows."""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import typer

from agentcli.commands import DirectoryOption, entry, new_app, reporting_errors

app = new_app("Run commands under agentcli's sandbox.")
Mode = Literal["read-only", "workspace-write", "danger-full-access"]  # agentcli.sandbox.MODES


@dataclass(frozen=True, slots=True)
class Options:
    """What `sandbox run` and `sandbox show` were asked for."""

    sandbox_mode: Mode | None
    network: bool
    allow_host: list[str] | None
    add_dirs: list[str] | None
    directory: str | None
    argv: list[str]


ModeOption = Annotated[Mode | None, typer.Option("--sandbox", show_default=False,
                                                 help="override the configured mode")]
NetworkFlag = Annotated[bool, typer.Option("--network", metavar="", help="allow the network")]
HostOption = Annotated[list[str] | None, typer.Option(
    "--allow-host", metavar="HOST", show_default=False,
    help="allow this host through the proxy (repeatable; *.domain for subdomains)")]
DirsOption = Annotated[list[str] | None, typer.Option("--add-dir", metavar="DIR", show_default=False,
                                                      help="another writable dir")]


@app.command("run", help="run a command under the sandbox (exit status: the command's)",
             context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
def run(argv: Annotated[list[str] | None, typer.Argument(metavar="-- CMD", show_default=False,
                                                         help="the command and its arguments")] = None,
        sandbox_mode: ModeOption = None, network: NetworkFlag = False, allow_host: HostOption = None,
        add_dirs: DirsOption = None, directory: DirectoryOption = None) -> int:
    ns = Options(sandbox_mode, network, allow_host, add_dirs, directory, list(argv or []))
    return reporting_errors(lambda: _run(ns))


@app.command("show", help="the mechanism, mode, and the paths it protects and hides")
def show(sandbox_mode: ModeOption = None, network: NetworkFlag = False, allow_host: HostOption = None,
         add_dirs: DirsOption = None, directory: DirectoryOption = None) -> int:
    return reporting_errors(lambda: _show(Options(sandbox_mode, network, allow_host, add_dirs, directory, [])))


main = entry(app, "sandbox")


def _sandbox(ns: Options):  # type: ignore[no-untyped-def]
    from agentcli.sandbox import for_settings
    from agentcli.settings.config import load_settings

    cwd = Path(ns.directory).resolve() if ns.directory else Path.cwd()
    dirs = tuple(Path(d).expanduser().resolve() for d in ns.add_dirs) if ns.add_dirs else None
    settings = load_settings(cwd, {"sandbox_mode": ns.sandbox_mode, "add_dirs": dirs})
    if ns.network:
        settings = dataclasses.replace(settings, sandbox=dataclasses.replace(settings.sandbox, network=True))
    if ns.allow_host:
        sandbox = dataclasses.replace(settings.sandbox, allowed_hosts=tuple(ns.allow_host))
        settings = dataclasses.replace(settings, sandbox=sandbox)
    return settings, for_settings(settings)


def _run(ns: Options) -> int:
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
    if sandbox.broken:  # asked for the sandbox: never run unconfined instead
        from agentcli.errors import AgentCliError

        raise AgentCliError(f"{sandbox.broken}; the command was not run", code="sandbox_unavailable",
                            hint="`agentcli doctor` shows more")
    sys.stdout.flush()
    try:
        if sandbox.serving:  # the allowlist proxy lives in this process: run the command as a child
            import subprocess

            return subprocess.run(wrapped, env=env, check=False).returncode
        os.execvpe(wrapped[0], wrapped, env)
    except OSError as err:
        raise UsageError(f"cannot run {wrapped[0]}: {err.strerror}", hint="check the command name") from err
    return 127  # not reached: exec replaced us


def _show(ns: Options) -> int:
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
