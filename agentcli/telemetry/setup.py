"""Starting OpenTelemetry for a session: the SDK's tracer and meter providers with OTLP exporters configured by
the standard environment variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_HEADERS`, `…_PROTOCOL`, `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`). Imported only when telemetry is on."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentcli import __version__
from agentcli.core.events import AgentEvent
from agentcli.errors import ConfigError
from agentcli.llm.messages import Usage

if TYPE_CHECKING:
    from agentcli.telemetry.recorder import TelemetryRecorder

FLUSH_TIMEOUT_MS = 2000  # the longest a run's exit waits for the collector
EXPORT_TIMEOUT_S = 1.5  # per export, retries included (the exporters' default of 10 s would hold every exit)


class DeferredRecorder:
    """The OpenTelemetry SDK and exporters take ~200 ms of CPU to import: that happens on a thread while the
    session starts and the first request goes out; events seen meanwhile are kept and replayed, in order."""

    def __init__(self, build: Callable[[], TelemetryRecorder]) -> None:
        self._build = build
        self._ready: TelemetryRecorder | None = None
        self._error: BaseException | None = None
        self._pending: list[AgentEvent] = []
        self._thread = threading.Thread(target=self._make, name="agentcli-telemetry-import", daemon=True)
        self._thread.start()

    def _make(self) -> None:
        try:
            self._ready = self._build()
        except BaseException as err:  # reported by close(); telemetry must never break a run
            self._error = err

    def feed(self, event: AgentEvent) -> None:
        if self._ready is None:
            self._pending.append(event)
            return
        if self._pending:
            self._drain(self._ready)
        self._ready.feed(event)

    def _drain(self, recorder: TelemetryRecorder) -> None:
        pending, self._pending = self._pending, []
        for ev in pending:
            recorder.feed(ev)

    def close(self) -> None:
        self._thread.join(10)
        if self._ready is not None:
            self._drain(self._ready)
            self._ready.close()


def check_installed() -> None:
    """Fail now, with the fix, rather than on the import thread."""
    import importlib.util

    for name in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"):
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise ConfigError(f"telemetry is on, but OpenTelemetry is not installed ({name})",
                              hint="pip install 'agentcli[telemetry]', or turn telemetry off")


def make_recorder(cost_fn: Callable[[str, Usage], float], *, log_prompts: bool,
                  redact: Callable[[str], str]) -> tuple[DeferredRecorder, list[str]]:
    """The session's recorder (built in the background), and notices (an unsupported protocol)."""
    check_installed()
    notices: list[str] = []
    protocol = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
                or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf")
    if protocol != "http/protobuf":
        notices.append(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported; telemetry is sent as "
                       "http/protobuf")
    return DeferredRecorder(lambda: _build(cost_fn, log_prompts, redact)), notices


def _build(
    cost_fn: Callable[[str, Usage], float], log_prompts: bool, redact: Callable[[str], str]
) -> TelemetryRecorder:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from agentcli.telemetry.recorder import Instruments, TelemetryRecorder

    defaults = {"service.version": __version__}
    if not os.environ.get("OTEL_SERVICE_NAME"):
        defaults["service.name"] = "agentcli"
    resource = Resource.create(defaults)
    tracer_provider = TracerProvider(resource=resource)
    timeout = None if os.environ.get("OTEL_EXPORTER_OTLP_TIMEOUT") else EXPORT_TIMEOUT_S
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(timeout=timeout)))
    reader = PeriodicExportingMetricReader(OTLPMetricExporter(timeout=timeout), export_interval_millis=60_000)
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])

    def flush() -> None:
        tracer_provider.force_flush(FLUSH_TIMEOUT_MS)
        meter_provider.force_flush(FLUSH_TIMEOUT_MS)
        tracer_provider.shutdown()
        meter_provider.shutdown(timeout_millis=FLUSH_TIMEOUT_MS)

    return TelemetryRecorder(tracer_provider.get_tracer("agentcli", __version__),
                             Instruments.create(meter_provider.get_meter("agentcli", __version__)), flush,
                             cost_fn=cost_fn, log_prompts=log_prompts, redact=redact)
