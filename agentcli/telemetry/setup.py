"""Starting OpenTelemetry for a session: the SDK's tracer and meter providers with OTLP exporters configured by
the standard environment variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_HEADERS`, `…_PROTOCOL`, `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`). Imported only when telemetry is on."""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from agentcli.core.events import AgentEvent
from agentcli.errors import ConfigError
from agentcli.llm.messages import Usage
from agentcli.version import __version__

if TYPE_CHECKING:
    from agentcli.telemetry.otlp import Sender, Signal, Target
    from agentcli.telemetry.recorder import TelemetryRecorder

EXIT_WAIT_MS = 1000  # the longest a run's exit waits for telemetry (OTEL_BSP_EXPORT_TIMEOUT overrides)

log = logging.getLogger("agentcli.telemetry")
T = TypeVar("T")


RecorderFactory = Callable[[Callable[[str, Usage], float], bool, Callable[[str], str]], "TelemetryRecorder"]


class DeferredRecorder:
    """The OpenTelemetry SDK, the OTLP encoder (protobuf) and their set-up take ~45–65 ms of CPU here: that
    happens on a thread (for `-p`, begun by `preload` as soon as the settings are read), so it overlaps the
    session's assembly and the first request; events seen meanwhile are kept and replayed, in order. `bind`
    gives it what the recorder needs from the assembled run. The exit waits `exit_wait_s` at most, for the rest
    of the import and the last export together."""

    def __init__(self, build: Callable[[], RecorderFactory], exit_wait_s: float, log_prompts: bool) -> None:
        self._build = build
        self.exit_wait_s = exit_wait_s
        self._log_prompts = log_prompts
        self._factory: RecorderFactory | None = None
        self._bound: tuple[Callable[[str, Usage], float], Callable[[str], str]] | None = None
        self._recorder: TelemetryRecorder | None = None
        self._error: BaseException | None = None
        self._pending: list[AgentEvent] = []
        self._thread = threading.Thread(target=self._make, name="agentcli-telemetry-import", daemon=True)
        self._thread.start()

    def bind(self, cost_fn: Callable[[str, Usage], float], redact: Callable[[str], str]) -> DeferredRecorder:
        self._bound = (cost_fn, redact)
        return self

    def _ready(self) -> TelemetryRecorder | None:
        if self._recorder is None and self._factory is not None and self._bound is not None:
            self._recorder = self._factory(self._bound[0], self._log_prompts, self._bound[1])
        return self._recorder

    def _make(self) -> None:
        try:
            if _early is not None:  # the import `preload` began: one thread imports at a time (no lock-order risk)
                _early.join()
            self._factory = _with_gc_paused(self._build)
        except BaseException as err:  # reported by close(); telemetry must never break a run
            self._error = err

    def feed(self, event: AgentEvent) -> None:
        recorder = self._ready()
        if recorder is None:
            if self._error is None:  # (a failed start keeps nothing: close() reports it)
                self._pending.append(event)
            return
        if self._pending:
            self._drain(recorder)
        self.feed = recorder.feed  # type: ignore[method-assign]  # from now on straight to it (20k deltas: ~1 ms)
        recorder.feed(event)

    def _drain(self, recorder: TelemetryRecorder) -> None:
        pending, self._pending = self._pending, []
        for ev in pending:
            recorder.feed(ev)

    def close(self) -> None:
        deadline = time.monotonic() + self.exit_wait_s
        self._thread.join(self.exit_wait_s)
        recorder = self._ready()
        if recorder is not None:
            self._drain(recorder)
            recorder.close(deadline)
        elif self._error is not None:
            log.warning("telemetry could not start: %s", self._error)
        elif self._factory is None:
            log.warning("telemetry was not ready within %.0f ms of the exit; nothing was exported",
                        self.exit_wait_s * 1000)


_early: threading.Thread | None = None


def preload(env: Mapping[str, str] | None = None) -> None:
    """Begin importing what telemetry will need (the SDK, the OTLP encoder, protobuf: ~50–75 ms of CPU), on a
    thread, as soon as the settings say telemetry is on: a run answered at once otherwise ends before that import
    does, and its exit waits for the rest (issue 19: ≤ 30 ms). `start` then finds it done, or waits for it on
    its own thread. Best effort: a failure here is left for `start` to report."""
    global _early
    if _early is None:
        e = os.environ if env is None else env
        _early = threading.Thread(target=_with_gc_paused, args=(lambda: _import(e),),
                                  name="agentcli-telemetry-preload", daemon=True)
        _early.start()


def _import(env: Mapping[str, str]) -> None:
    """What `_build` imports, for the signals and protocol `env` asks for."""
    from agentcli.telemetry.otlp import enabled, protocol_of

    try:
        import agentcli.telemetry.exporters  # the trace SDK, the trace encoder, protobuf
        import agentcli.telemetry.recorder  # noqa: F401

        if enabled("metrics", env):
            import opentelemetry.exporter.otlp.proto.common.metrics_encoder  # the metrics SDK  # noqa: F401
        if "http/json" in (protocol_of("traces", env)[0], protocol_of("metrics", env)[0]):
            import google.protobuf.json_format  # type: ignore[import-untyped]  # noqa: F401
    except Exception:  # `start` imports the same and says what is wrong
        pass


def _with_gc_paused(make: Callable[[], T]) -> T:
    """The import allocates tens of thousands of objects that live as long as the process (modules, classes,
    functions). Left to the cyclic GC they trigger extra collections meanwhile, and a full one later that rescans
    them all: ~40 ms of a 20k-token run's CPU (measured, bench/RESULTS.md). So the collector pauses while they are
    made, and they are then moved out of its sight (`gc.freeze`), as long-lived servers do after start-up;
    refcounting still frees everything as before. The freeze covers the whole heap, so only when the process is
    the `agentcli` command, never a program embedding the Python API."""
    was = gc.isenabled()
    gc.disable()
    try:
        made = make()
        if _owns_process():
            gc.freeze()
        return made
    finally:
        if was:
            gc.enable()


def _owns_process() -> bool:
    """Whether this process is the `agentcli` command: `python -m agentcli`, or the console script (whose
    `__main__` runs `from agentcli.__main__ import main`)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == "agentcli.__main__":
        return True
    entry = sys.modules.get("agentcli.__main__")
    return entry is not None and getattr(main, "main", None) is getattr(entry, "main", None)


def check_installed() -> None:
    """Fail now, with the fix, rather than on the import thread."""
    import importlib.util

    for name in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.common"):
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise ConfigError(f"telemetry is on, but OpenTelemetry is not installed ({name})",
                              hint="pip install 'agentcli[telemetry]', or turn telemetry off")


def exit_wait_s(env: Mapping[str, str] | None = None) -> float:
    raw = (os.environ if env is None else env).get("OTEL_BSP_EXPORT_TIMEOUT", "").strip()
    try:
        return max(0.0, float(raw) / 1000) if raw else EXIT_WAIT_MS / 1000
    except ValueError:
        raise ConfigError(f"OTEL_BSP_EXPORT_TIMEOUT={raw} is not a number of milliseconds") from None


def start(*, log_prompts: bool) -> tuple[DeferredRecorder, list[str]]:
    """Begin loading telemetry in the background (`bind` the recorder once the run is assembled), and notices
    (an unsupported protocol). The configuration is read here, so a bad endpoint or timeout is an error before
    the run starts."""
    check_installed()
    from agentcli.telemetry.otlp import Target, enabled, protocol_of

    notices: list[str] = []
    targets: dict[Signal, Target] = {}
    for signal in ("traces", "metrics"):
        if enabled(signal):
            targets[signal] = Target.from_env(signal)
            if (note := protocol_of(signal)[1]) and note not in notices:
                notices.append(note)
    return DeferredRecorder(lambda: _build(targets), exit_wait_s(), log_prompts), notices


def make_recorder(cost_fn: Callable[[str, Usage], float], *, log_prompts: bool,
                  redact: Callable[[str], str]) -> tuple[DeferredRecorder, list[str]]:
    """`start` and `bind` at once."""
    recorder, notices = start(log_prompts=log_prompts)
    return recorder.bind(cost_fn, redact), notices


def _build(targets: Mapping[Signal, Target]) -> RecorderFactory:
    """The SDK's providers with our exporters (only the signals that are on are set up, and imported), as a
    factory of the recorder that feeds them."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from agentcli.telemetry.exporters import OtlpSpanExporter
    from agentcli.telemetry.otlp import Sender
    from agentcli.telemetry.recorder import Instruments, TelemetryRecorder

    resource = _resource()
    # shutdown_on_exit off: the exit's flush is ours, bounded (the SDK's atexit hook would wait unbounded)
    tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    senders: list[Sender] = []
    if "traces" in targets:
        senders.append(Sender("traces", targets["traces"]))
        tracer_provider.add_span_processor(BatchSpanProcessor(OtlpSpanExporter(senders[-1])))
    meter_provider: Any = None
    if "metrics" in targets:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        from agentcli.telemetry.exporters import metric_exporter

        senders.append(Sender("metrics", targets["metrics"]))
        reader = PeriodicExportingMetricReader(metric_exporter(senders[-1]), export_interval_millis=60_000)
        meter_provider = MeterProvider(resource=resource, metric_readers=[reader], shutdown_on_exit=False)
        meter = meter_provider.get_meter("agentcli", __version__)
    else:
        from opentelemetry.metrics import NoOpMeter

        meter = NoOpMeter("agentcli", __version__)

    tracer = tracer_provider.get_tracer("agentcli", __version__)
    instruments = Instruments(meter)
    last_export = _LastExport(tracer_provider, meter_provider, senders)

    def factory(cost_fn: Callable[[str, Usage], float], log_prompts: bool,
                redact: Callable[[str], str]) -> TelemetryRecorder:
        for sender in senders:  # called from the agent's thread (see Sender.__init__)
            sender.open()
        return TelemetryRecorder(tracer, instruments, last_export, cost_fn=cost_fn, log_prompts=log_prompts,
                                 redact=redact)

    return factory


def _resource() -> Any:
    """The SDK's resource: ours (`service.name=agentcli`, `service.version`) under what the standard variables
    say (`OTEL_RESOURCE_ATTRIBUTES`, then `OTEL_SERVICE_NAME`), as the specification orders them.
    `Resource.create` runs its two default detectors on a thread pool made for the call (2 threads, ~2 ms of CPU
    here); without other detectors asked for (`OTEL_EXPERIMENTAL_RESOURCE_DETECTORS`) the same two detectors are
    run here directly."""
    from opentelemetry.sdk.resources import (
        OTELResourceDetector,
        Resource,
        ServiceInstanceIdResourceDetector,
    )

    ours = Resource({"service.name": "agentcli", "service.version": __version__})
    if os.environ.get("OTEL_EXPERIMENTAL_RESOURCE_DETECTORS", "").strip():
        detected = Resource.create()
        if str(detected.attributes.get("service.name", "")).startswith("unknown_service"):
            return detected.merge(ours)  # the SDK's placeholder: no name was given, ours it is
        return ours.merge(detected)
    from opentelemetry.sdk.resources import TELEMETRY_SDK_LANGUAGE, TELEMETRY_SDK_NAME, TELEMETRY_SDK_VERSION
    from opentelemetry.sdk.version import __version__ as sdk_version

    sdk = Resource({TELEMETRY_SDK_LANGUAGE: "python", TELEMETRY_SDK_NAME: "opentelemetry",
                    TELEMETRY_SDK_VERSION: sdk_version})
    return sdk.merge(ours).merge(ServiceInstanceIdResourceDetector().detect()).merge(OTELResourceDetector().detect())


class _LastExport:
    """The flushes. When a run ends (`begin`), what is queued goes out at once, spans and metrics side by side on
    threads of their own, while the result is printed and the session closes. The exit (`__call__`) then waits for
    those exports until `deadline` at most (then gives up: the daemon threads end with the process), flushes again
    only if something was recorded since, and no export retries or outlives the deadline. The SDK's own shutdown
    (its worker threads, which a host of the Python API must get back) then runs in the background: the exit
    does not wait for those threads to wake and end."""

    __slots__ = ("_begun", "meter_provider", "senders", "tracer_provider")

    def __init__(self, tracer_provider: Any, meter_provider: Any, senders: list[Sender]) -> None:
        self.tracer_provider, self.meter_provider, self.senders = tracer_provider, meter_provider, senders
        self._begun: list[threading.Thread] = []

    def begin(self) -> bool:
        """False when an earlier flush is still under way (a slow collector): then the exit flushes again."""
        if any(t.is_alive() for t in self._begun):
            return False
        self._begun = self._start()
        return True

    def __call__(self, deadline: float, again: bool) -> None:
        for s in self.senders:
            s.end(deadline)
        late = self._wait(self._begun, deadline)
        if again and not late:
            late = self._wait(self._start(), deadline)
        if late or any(s.timed_out_at_exit for s in self.senders):  # a flush that ended is not one that was sent
            log.warning("telemetry: the collector (%s) did not take the last export in time; it is lost "
                        "(OTEL_BSP_EXPORT_TIMEOUT sets how long the exit waits, in ms; OTEL_EXPORTER_OTLP_TIMEOUT "
                        "how long an export may take, in s)", ", ".join(dict.fromkeys(s.where for s in self.senders)))
        for s in self.senders:
            s.closed = True  # the metric reader's shutdown collects once more: already sent, so not again
        threading.Thread(target=self._shutdown, name="agentcli-telemetry-shutdown", daemon=True).start()

    def _start(self) -> list[threading.Thread]:
        flushes = [self.tracer_provider.force_flush]
        if self.meter_provider is not None:
            flushes.append(self.meter_provider.force_flush)  # the metric reader collects and exports
        threads = [threading.Thread(target=f, name="agentcli-telemetry-flush", daemon=True) for f in flushes]
        for t in threads:
            t.start()
        return threads

    @staticmethod
    def _wait(threads: list[threading.Thread], deadline: float) -> bool:
        """Whether any of `threads` is still running at `deadline`."""
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        return any(t.is_alive() for t in threads)

    def _shutdown(self) -> None:
        self.tracer_provider.shutdown()
        if self.meter_provider is not None:
            self.meter_provider.shutdown()
