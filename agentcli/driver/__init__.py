"""The one driver every front end runs its turns through (`-p`, stream-json, the Python API, the REPL; next ACP
and the HTTP server). It starts a session, runs prompts as streams of events, stops them, and ends the session,
so start-up notices, failures, interrupts and signals are handled once, here:

    from contextlib import aclosing
    from agentcli.driver import Driver

    driver = Driver(settings, approver)          # nothing is built yet; `approver` answers every `ask`
    with driver.signals():                       # optional: SIGTERM/SIGINT/SIGHUP stop the session
        failed = await driver.start()            # optional: build now (`run` builds on first use); None when ready
        async with aclosing(driver.run("fix the failing test")) as events:
            async for event in events:           # AgentEvents (agentcli.core.events), pure data
                show(event)                      # the last one is always exactly one RunFinished
    await driver.aclose()                        # SessionEnd hooks, background shells, provider, session file

What comes in the stream, so a front end has nothing to add by hand:
- Start-up notices (project settings not trusted, no sandbox on this system, hooks or tools dropped …) as
  `Notice` events right after the first `SessionStarted` (`take_notices()` takes them earlier, for a REPL that
  shows them above its first prompt).
- A session that cannot start (bad setting, no provider, a signal while building): one `RunFinished` with a
  failed result (`error_code` and `exit_status` from agentcli.errors), and no `SessionStarted`.
- A stopped turn: `interrupt()` (from another task, a key binding, a control request, the Approver itself)
  cancels the turn where it waits; the loop keeps the transcript valid and the run still ends with one
  `RunFinished`: `error_during_execution`, code `interrupted`, with the turns, time, usage and cost so far.
  `interrupt(sig)` / `signals()`: code `interrupted` (SIGINT) or `terminated`, exit status 128+N, and the session
  is ending (`driver.signal` is set; later runs end at once).

Other parts:
- One prompt at a time: a `run` while another is under way ends at once with a failed result (code `usage`).
- `driver.agent` is the session's `Agent` once started, for its command API (set_mode, switch_model, rewind …);
  `adopt(built)` drives an agent built elsewhere (the REPL builds in the background and rebuilds on /clear).
- `compact(focus)` runs `/compact` as a turn (events, then a success or failed `RunFinished`).
- Approvals are the injected `Approver`'s (agentcli.core.permissions): a front end that asks a person (or an
  editor, or an HTTP client) answers there, by id if it likes; events carry no futures.
- The driver never prints and never writes to stdout: what is shown, and when, is the front end's. A printer
  that must not show a reply before the run is known to succeed (`-p --output-format json`) waits for
  `RunFinished`.

Modules: `driver` (Driver), `results` (the failed, stopped and compaction results: made here and nowhere else).
"""

from __future__ import annotations

from agentcli.driver.driver import STOP_SIGNALS, Driver

__all__ = ["STOP_SIGNALS", "Driver"]
