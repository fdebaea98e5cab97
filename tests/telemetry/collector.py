"""A local OTLP/HTTP collector for the tests: decodes what it gets with opentelemetry-proto (protobuf, or OTLP/JSON
through the protobuf JSON mapping after turning its hex ids back into bytes), gunzips gzip bodies, keeps the
headers; or, `hang=True`, reads each request and never answers (a collector that is stuck)."""

from __future__ import annotations

import base64
import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.fakes.serving import serve_in_thread

_HEX_IDS = ("traceId", "spanId", "parentSpanId")


def _ids_to_base64(node: Any) -> Any:
    """OTLP/JSON writes trace and span ids in hex; the protobuf JSON mapping reads bytes as base64."""
    if isinstance(node, dict):
        return {k: base64.b64encode(bytes.fromhex(v)).decode() if k in _HEX_IDS else _ids_to_base64(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_ids_to_base64(v) for v in node]
    return node


class Receiver:
    def __init__(self, hang: bool = False) -> None:
        self.raw: list[bytes] = []
        self.requests: list[tuple[str, dict[str, str], bytes]] = []  # path, headers (lower-case), decoded body
        self.spans: list[Any] = []
        self.resources: list[Any] = []
        self.metrics: list[Any] = []
        self.released = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.raw.append(body)
                headers = {k.lower(): v for k, v in self.headers.items()}
                if headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                receiver.requests.append((self.path, headers, body))
                if hang:
                    receiver.released.wait(60)
                    return
                receiver.take(self.path, headers.get("content-type", ""), body)
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        serve_in_thread(self.server)

    def take(self, path: str, content_type: str, body: bytes) -> None:
        kind = {"/v1/traces": ExportTraceServiceRequest, "/v1/metrics": ExportMetricsServiceRequest}.get(path)
        if kind is None:
            return
        if content_type == "application/json":
            req = ParseDict(_ids_to_base64(json.loads(body)), kind())
        else:
            req = kind.FromString(body)
        if path == "/v1/traces":
            self.spans += [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
            self.resources += [rs.resource for rs in req.resource_spans]
        else:
            self.metrics += [m for rm in req.resource_metrics for sm in rm.scope_metrics for m in sm.metrics]

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        v = kv.value
        out[kv.key] = getattr(v, v.WhichOneof("value")) if v.WhichOneof("value") else None
    return out
