"""The SDK's exporter interfaces, implemented over `otlp.Sender`: spans and metrics encoded by the official
OTLP encoder (`opentelemetry-exporter-otlp-proto-common`), as protobuf or, when the protocol variable says
http/json, as OTLP/JSON (the protobuf JSON mapping, with trace and span ids in hex as OTLP/JSON requires)."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from agentcli.telemetry.otlp import Sender

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, MetricsData

_HEX_IDS = frozenset({"traceId", "spanId", "parentSpanId"})


def serialize(msg: Any, protocol: str) -> bytes:
    """`msg`: an OTLP export request (a protobuf message, untyped: protobuf ships no type hints)."""
    if protocol != "http/json":
        return bytes(msg.SerializeToString())
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

    return json.dumps(_hex_ids(MessageToDict(msg, use_integers_for_enums=True)),
                      separators=(",", ":")).encode()


def _hex_ids(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: base64.b64decode(v).hex() if k in _HEX_IDS and isinstance(v, str) else _hex_ids(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_hex_ids(v) for v in node]
    return node


def _ready_for(protocol: str) -> None:
    """Load now (while the run starts) what the first export will need, so the exit does not pay for it."""
    if protocol == "http/json":
        import google.protobuf.json_format  # type: ignore[import-untyped]  # noqa: F401


class OtlpSpanExporter(SpanExporter):
    def __init__(self, sender: Sender) -> None:
        self.sender = sender
        _ready_for(sender.target.protocol)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        body = serialize(encode_spans(spans), self.sender.target.protocol)
        return SpanExportResult.SUCCESS if self.sender.post(body) else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        self.sender.close()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def metric_exporter(sender: Sender) -> MetricExporter:
    """Made on demand, so the metrics SDK is imported only when metrics are on (and, like the encoders and the
    HTTP client, while the run starts: never on the exit's path)."""
    from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics
    from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult

    _ready_for(sender.target.protocol)

    class OtlpMetricExporter(MetricExporter):
        def export(self, metrics_data: MetricsData, timeout_millis: float = 10_000,
                   **kwargs: Any) -> MetricExportResult:
            if sender.closed:  # the reader's last collection, after the exit's flush sent the same figures
                return MetricExportResult.FAILURE
            body = serialize(encode_metrics(metrics_data), sender.target.protocol)
            return MetricExportResult.SUCCESS if sender.post(body) else MetricExportResult.FAILURE

        def force_flush(self, timeout_millis: float = 10_000) -> bool:
            return True

        def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
            sender.close()

    return OtlpMetricExporter()
