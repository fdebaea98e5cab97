"""OpenTelemetry export (off by default; nothing here is imported unless it is on): traces and metrics of runs,
turns, model requests and tool calls. See docs/telemetry.md."""
