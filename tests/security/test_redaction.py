"""The one redactor (`agentcli.redact`): every secret shape, and every place text leaves the process through it —
session files, error messages, MCP errors, telemetry, hook output."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.errors import AgentCliError
from agentcli.llm.messages import Message, TextBlock, ToolUseBlock
from agentcli.mcp.config import ServerConfig
from agentcli.mcp.connection import describe_error
from agentcli.net.errors import ApiIdentity, error_from_status
from agentcli.redact import REDACTED, Redactor, redact
from agentcli.session.store import open_session
from agentcli.tools.base import ToolContext
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.telemetry.test_otel_e2e import Receiver

# (what it is, the text it appears in, the secret part that must go). None of these is a configured secret.
SHAPES: list[tuple[str, str, str]] = [
    ("anthropic key", "key sk-ant-api03-Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9", "Zq9Zq9Zq9Zq9Zq9Zq9Zq9"),
    ("openai project key", "OPENAI_API_KEY=sk-proj-AbC123dEf456GhI789jKl0", "AbC123dEf456GhI789jKl0"),
    ("short sk key in an error", "Incorrect API key provided: sk-abc123xyz.", "abc123xyz"),
    ("gemini key", "?alt=sse&key=AIzaSyA1234567890123456789012345", "SyA1234567890123456789012345"),
    ("github token", "ghp_" + "a1B2" * 9, "a1B2a1B2a1B2a1B2"),
    ("github fine-grained", "github_pat_" + "11ABCDEFG0" * 5, "11ABCDEFG011ABCDEFG0"),
    ("slack token", "xoxb-1234567890-abcdefghij", "1234567890-abcdefghij"),
    ("aws access key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("hugging face", "hf_" + "x1Y2z3" * 6, "x1Y2z3x1Y2z3x1Y2z3"),
    ("groq", "gsk_" + "Q7w8E9r0T1" * 2, "Q7w8E9r0T1Q7w8E9r0T1"),
    ("bearer token", "sent Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjEyMzR9.c2lnbmF0dXJlMTIz", "eyJzdWIiOjEyMzR9"),
    ("authorization header", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw"),
    ("curl -H x-api-key", "curl -H 'x-api-key: 0a1b2c3d4e5f6a7b8c9d' https://h", "0a1b2c3d4e5f6a7b8c9d"),
    ("json header value", '{"headers": {"api-key": "f00dfeed1234beef"}}', "f00dfeed1234beef"),
    ("x-goog-api-key", "X-Goog-Api-Key: 9z8y7x6w5v4u3t2s", "9z8y7x6w5v4u3t2s"),
    ("proxy-authorization", "Proxy-Authorization: Bearer pr0xy-t0ken-value", "pr0xy-t0ken-value"),
    ("url password", "proxy http://alice:hunter2pass@proxy.corp:8080 failed", "hunter2pass"),
    ("url password with a raw @", "proxy http://alice:p@ss-w0rd@proxy.corp:8080 failed", "ss-w0rd"),
    ("url token as user", "git clone https://t0k3nAbCdEfGh1234@git.corp/x.git", "t0k3nAbCdEfGh1234"),
    ("query token", "GET https://h/cb?state=1&access_token=ya29.a0AfH6SMB123", "ya29.a0AfH6SMB123"),
]

# Ordinary code and prose that looks close: it must come through unchanged.
ORDINARY = [
    "task-0123456789abcdefghijklmnop and disk-usage-report-2024",
    'headers = {"Authorization": f"Bearer {api_key}"}',
    'auth = request.headers["authorization"]',
    "authorization: AuthorizationHeader = default_header()",
    "use Bearer authentication with a token from the vault",
    "ssh://git@github.com/owner/repo.git and user@example.com",
    "url = f'https://h/v1?key={key}&alt=sse'",
    'x_api_key: str = os.environ["X_API_KEY"]',
]


@pytest.mark.parametrize(("what", "text", "secret"), SHAPES, ids=[s[0] for s in SHAPES])
def test_each_secret_shape_is_redacted_by_the_one_function(what: str, text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and REDACTED in out, out


@pytest.mark.parametrize("text", ORDINARY)
def test_code_that_only_looks_like_a_secret_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_what_stays_readable_around_a_redaction() -> None:
    assert redact("Authorization: Bearer abcd1234efgh5678") == f"Authorization: Bearer {REDACTED}"
    assert redact("http://alice:pw12345678@proxy:8080") == f"http://alice:{REDACTED}@proxy:8080"
    assert redact("https://h/m?key=AIzaSyA1234567890123456789012345&alt=sse").endswith("&alt=sse")
    assert redact("the key is my-own-secret", ["my-own-secret", None, ""]) == f"the key is {REDACTED}"


ALL = "\n".join(t for _, t, _ in SHAPES)
SECRETS = [s for _, _, s in SHAPES]


def _leaks(text: str | bytes) -> list[str]:
    data = text if isinstance(text, bytes) else text.encode()
    return [s for s in SECRETS if s.encode() in data]


def test_session_files_hold_no_shape(tmp_path: Path) -> None:
    s = open_session(tmp_path, secrets=())
    assert s.writer is not None
    s.writer.message(Message.user(ALL))
    s.writer.message(Message("assistant", (TextBlock(ALL), ToolUseBlock("t1", "Bash", {"command": ALL}))))
    s.writer.record("permission", {"input": {"command": ALL}})
    s.close()
    assert _leaks(s.writer.path.read_bytes()) == []


def test_error_messages_hold_no_shape() -> None:
    err = error_from_status(401, f"invalid credentials: {ALL}", ApiIdentity("Anthropic", "ANTHROPIC_API_KEY"))
    assert _leaks(err.one_line()) == [] and _leaks(str(err.to_dict())) == []
    assert _leaks(AgentCliError(f"proxy failed: {ALL}", hint=ALL).one_line()) == []


def test_mcp_errors_hold_no_shape_nor_configured_header() -> None:
    cfg = ServerConfig("srv", "http", "user", "flag", url="https://mcp.example/x?token=abc123def456",
                       headers={"X-Custom": "configured-header-value"})
    line = describe_error(RuntimeError(f"{ALL} configured-header-value {cfg.url}"), cfg)
    assert _leaks(line) == [] and "configured-header-value" not in line and "abc123def456" not in line


def test_tool_context_keeps_shapes_for_the_model_but_not_for_telemetry(tmp_path: Path) -> None:
    ctx = ToolContext(project_root=tmp_path, secrets=("configured-secret",))
    assert ctx.redact("sk-proj-AbC123dEf456GhI789jKl0 configured-secret") == \
        f"sk-proj-AbC123dEf456GhI789jKl0 {REDACTED}"
    assert _leaks(ctx.redact(ALL, shapes=True)) == []
    assert Redactor(("configured-secret",), patterns=False).text(ALL) == ALL


@pytest.fixture
def collector() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


def test_a_run_sends_no_shape_to_the_session_file_or_telemetry(tmp_path: Path, fake_llm: FakeLLM,
                                                               collector: Receiver) -> None:
    """Bash prints every shape, a PostToolUse hook prints them again (to the model, exit 2), the model repeats
    them: the session file and the exported spans (prompts included) hold none."""
    home = Path(os.environ["AGENTCLI_HOME"])
    (home / "config.toml").write_text("telemetry_log_prompts = true\n")
    proj = git_repo(tmp_path / "proj", {"shapes.txt": ALL + "\n"})
    hook = proj / "hooks" / "echo.py"
    hook.parent.mkdir()
    hook.write_text("import sys\nsys.stdin.read()\nprint(open('shapes.txt').read(), file=sys.stderr)\nsys.exit(2)\n")
    settings = ('{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "'
                + f"{sys.executable} {hook}" + '"}]}]}}')
    fake_llm.push(Reply(text=ALL, tool_calls=[ToolCall("Bash", {"command": "cat shapes.txt"})]), Reply(text=ALL))
    env = {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1",
           "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url}
    run = agentcli(["-p", "show me", "--model", ANTHROPIC, "--output-format", "json", "--allowedTools", "Bash",
                    "--settings", settings], proj, env)
    assert run.status == 0, run.stderr
    sent = str(fake_llm.requests[1].body["messages"])
    assert "Zq9Zq9Zq9Zq9Zq9Zq9Zq9" in sent  # the hook's output reached the model (fixtures stay readable there)
    assert collector.raw, run.stderr
    assert _leaks(b"".join(collector.raw)) == []
    sessions = list((home / "projects").rglob("*.jsonl"))
    assert sessions and all(_leaks(p.read_bytes()) == [] for p in sessions)


def test_url_userinfo_search_stays_linear_on_hostile_text() -> None:
    """Text made of many `://` and `@` (a hostile tool's output) costs time in proportion to its length."""
    import time

    started = time.process_time()
    for evil in ("://a@" * 200_000, "http://" + "a@" * 500_000, "x ://" + "a:" * 500_000 + "@"):
        redact(evil)
    assert time.process_time() - started < 5  # quadratic would be minutes


def test_urls_shown_or_stored_lose_credentials_query_and_fragment() -> None:
    from agentcli.redact import public_url

    assert public_url("http://u:pw@[::1]:8080/v1?key=AIzaSecret#frag") == "http://[::1]:8080/v1"
    assert public_url("https://t0ken@api.example.com/v1/") == "https://api.example.com/v1/"
    assert public_url("http://h:99999/") == "(invalid URL)"


def test_secrets_of_the_environment_by_name_and_their_base64_never_leave(tmp_path: Path, fake_llm: FakeLLM,
                                                                         collector: Receiver) -> None:
    """A deploy token in the environment (`*_API_KEY`, no known shape) and the OTLP exporter's bearer token: a
    committed file holding the same token (plain, in JSON, as base64 in a Basic header) and `env` in a command
    show the model none of them, nor the session file, nor the exported spans (prompts included)."""
    import base64
    import json

    token, otlp = "q7Zx0Lm2Np4Rt6Vw8Yb", "otlp-T0ken-9f8e7d6c"
    basic = base64.b64encode(f"deploy:{token}".encode()).decode()
    home = Path(os.environ["AGENTCLI_HOME"])
    (home / "config.toml").write_text("telemetry_log_prompts = true\n")
    as_json = json.dumps({"deploy": {"token": token}})
    files = {"deploy.cfg": f"token={token}\n{as_json}\nAuthorization: Basic {basic}\n"}
    proj = git_repo(tmp_path / "proj", files)
    fake_llm.push(Reply(tool_calls=[ToolCall("Bash", {"command": "cat deploy.cfg; env"})]), Reply(text="seen"))
    env = {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1", "DEPLOY_API_KEY": token,
           "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_BSP_EXPORT_TIMEOUT": "30000",
           "OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer%20{otlp}"}
    run = agentcli(["-p", "show me", "--model", ANTHROPIC, "--output-format", "json", "--allowedTools", "Bash"],
                   proj, env)
    assert run.status == 0, run.stderr
    sent = json.dumps(fake_llm.requests[1].body["messages"])
    assert "token=[REDACTED]" in sent and "Basic [REDACTED]" in sent
    leaks = (token, otlp, basic, basic[8:-4], otlp[5:])
    assert [s for s in leaks if s in sent] == []
    assert collector.raw and [s for s in leaks if s.encode() in b"".join(collector.raw)] == []
    sessions = list((home / "projects").rglob("*.jsonl"))
    assert sessions and all(s not in p.read_text() for p in sessions for s in leaks)


@pytest.mark.parametrize("before", ["", "u", "us", "user:", "a much longer prefix "])
def test_a_given_secret_in_base64_is_redacted_in_every_alignment(before: str) -> None:
    import base64

    secret = "q7Zx0Lm2Np4Rt6Vw"
    r = Redactor((secret,), patterns=False)
    raw = (before + secret + " and after").encode()
    for encoded in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(b"\xfb\xff" + raw).decode()):
        assert r.text(f"Authorization: Basic {encoded}\nnext") == f"Authorization: Basic {REDACTED}\nnext"
    assert r.text("ordinary base64: aGVsbG8gd29ybGQ=") == "ordinary base64: aGVsbG8gd29ybGQ="


def test_secret_values_of_the_environment_are_picked_by_name_and_shape() -> None:
    from agentcli.settings.secretenv import secret_values

    env = {"DEPLOY_API_KEY": "q7Zx0Lm2Np4Rt6Vw", "CARGO_REGISTRY_TOKEN": "cio_abcdef123", "DB_PASSWORD": "pw-0987654",
           "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20t0ken-abc123,x-tenant=acme",
           "HOME": "/home/u", "SOME_TOKEN": "true", "SIGNING_KEY": "/etc/keys/signing.pem", "SHORT_KEY": "abc",
           "PATH_KEY": "with space value", "PORT_SECRET": "12345678"}
    assert secret_values(env) == {"q7Zx0Lm2Np4Rt6Vw", "cio_abcdef123", "pw-0987654", "t0ken-abc123"}


def test_a_secret_a_server_echoes_in_an_error_reaches_no_output(tmp_path: Path, fake_llm: FakeLLM,
                                                                collector: Receiver) -> None:
    """The provider's error quotes a token of the environment: the result, stderr, the session file and the
    exported run span (its error status) say the error without it."""
    from tests.fakes.script import Fault

    token = "q7Zx0Lm2Np4Rt6Vw8Yb"
    fake_llm.push(Reply(text="x", fault=Fault("http", 400, f"request rejected: deploy token {token} is invalid")))
    proj = git_repo(tmp_path / "proj", {"a.txt": "a\n"})
    env = {**provider_env(fake_llm, ANTHROPIC), "AGENTCLI_ENABLE_TELEMETRY": "1", "DEPLOY_API_KEY": token,
           "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_BSP_EXPORT_TIMEOUT": "30000"}
    run = agentcli(["-p", "hi", "--model", ANTHROPIC, "--output-format", "json"], proj, env)
    assert run.status != 0 and "request rejected: deploy token [REDACTED] is invalid" in run.stdout
    assert token not in run.stdout + run.stderr
    assert collector.raw and token.encode() not in b"".join(collector.raw)
    home = Path(os.environ["AGENTCLI_HOME"])
    assert all(token not in p.read_text() for p in (home / "projects").rglob("*.jsonl"))
