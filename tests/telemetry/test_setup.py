"""Telemetry's set-up: the resource it reports (ours, under what the standard variables say), and the import
`preload` begins as soon as a `-p` run's settings turn telemetry on."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentcli import __version__
from agentcli.telemetry.setup import _resource


@pytest.mark.parametrize("detectors", ["", "otel"])  # our two detectors run directly / the SDK's Resource.create
def test_the_service_is_agentcli_unless_the_standard_variables_name_it(
    monkeypatch: pytest.MonkeyPatch, detectors: str
) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    monkeypatch.setenv("OTEL_EXPERIMENTAL_RESOURCE_DETECTORS", detectors)
    plain = dict(_resource().attributes)
    assert plain["service.name"] == "agentcli" and plain["service.version"] == __version__
    assert plain["telemetry.sdk.language"] == "python" and plain["service.instance.id"]
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs,service.version=9,"
                       "deployment.environment=ci")
    named = dict(_resource().attributes)
    keys = ("service.name", "service.version", "deployment.environment")
    assert [named[k] for k in keys] == ["from-attrs", "9", "ci"]
    monkeypatch.setenv("OTEL_SERVICE_NAME", "ci-agent")
    assert _resource().attributes["service.name"] == "ci-agent"


def test_preload_imports_what_the_signals_and_protocol_asked_for_need_and_no_more() -> None:
    code = ("import sys\nfrom agentcli.telemetry import setup\n"
            "setup.preload({'OTEL_METRICS_EXPORTER': 'none', 'OTEL_EXPORTER_OTLP_PROTOCOL': 'http/json'})\n"
            "assert setup._early is not None\nsetup._early.join()\nprint(' '.join(sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    loaded = set(run.stdout.split())
    assert {"opentelemetry.sdk.trace", "opentelemetry.sdk.trace.export", "google.protobuf.json_format",
            "opentelemetry.exporter.otlp.proto.common.trace_encoder", "agentcli.telemetry.recorder"} <= loaded
    assert not any(m.startswith(("opentelemetry.sdk.metrics", "requests")) for m in loaded)
