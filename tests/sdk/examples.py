"""Running the Claude Agent SDK's own examples, unchanged, with agentcli as their `claude`.

The examples come from the SDK's sdist, which `scripts/sdk-examples` (run by scripts/test) downloads into
.cache/claude-agent-sdk/; each test unpacks a fresh copy into its temp dir and runs `python examples/X.py` there,
as a user of the SDK's repository would. Nothing of theirs is copied into this repository.

What makes them run on agentcli, as a user would set it up:
- the SDK is the sdist build, which has no bundled `claude` binary, so the SDK takes the `claude` on PATH;
- that `claude` is a symlink to agentcli's console script, in a temp bin directory put first on PATH;
- `$AGENTCLI_HOME/config.toml` makes a local model the default: the llama.cpp profile at the fake server, and
  `[model_overrides] "*"` so the Claude model names the examples ask for (`claude-sonnet-4-5`, `sonnet`) run it.

The fake server answers by rule (`Responder`): the user prompt of the turn picks a script of replies, and the
number of model replies since that prompt picks the step, so the answers do not depend on request order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tests.fakes.script import Reply, ToolCall, Usage
from tests.fakes.server import FakeLLM

REPO = Path(__file__).resolve().parents[2]
SDK_VERSION = version("claude-agent-sdk")
SDIST = REPO / ".cache" / "claude-agent-sdk" / f"claude_agent_sdk-{SDK_VERSION}.tar.gz"
LOCAL_MODEL = "smollm2"
# A prompt this size says the model saw agentcli's tool definitions (agentcli.assembly.toolsseen).
SEEN_TOOLS = Usage(input_tokens=6000)


def say(text: str) -> Reply:
    return Reply(text=text, usage=SEEN_TOOLS)


def call(name: str, text: str = "", **args: Any) -> Reply:
    return Reply(text=text, tool_calls=[ToolCall(name, args)], usage=SEEN_TOOLS)


@dataclass(frozen=True)
class Rule:
    """The replies, step by step, to a turn whose user prompt contains `when`."""

    when: str
    steps: tuple[Reply, ...]


def rule(when: str, *steps: Reply | str) -> Rule:
    return Rule(when, tuple(say(s) if isinstance(s, str) else s for s in steps))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def turn_of(messages: list[dict[str, Any]]) -> tuple[list[str], int]:
    """(the user text that opened this turn, narrowest first; how many model replies came since). The narrowest
    is the last text part (an interrupted prompt and the next one may share a message), the widest the whole
    last run of user messages (a hook's added context may be one of them)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    if last < 0:
        return [""], 0
    first = last
    while first > 0 and messages[first - 1].get("role") == "user":
        first -= 1
    content = messages[last].get("content")
    parts = [_text([content[-1]])] if isinstance(content, list) and content else []
    texts = [*parts, _text(content), "\n".join(_text(m.get("content")) for m in messages[first:last + 1])]
    return texts, sum(1 for m in messages[last + 1:] if m.get("role") == "assistant")


@dataclass
class Responder:
    """The fake's `responder`: a rule's step for each request; anything unforeseen is kept in `unscripted`."""

    rules: list[Rule]
    unscripted: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, path: str, body: dict[str, Any]) -> Reply:
        texts, step = turn_of(body.get("messages", []))
        picked = next((r for text in texts for r in self.rules if r.when in text), None)
        if picked is not None and step < len(picked.steps):
            return picked.steps[step]
        with self.lock:
            self.unscripted.append(f"step {step} of {texts[-1][:200]!r}")
        return say("(unscripted)")


def unpack(dest: Path) -> Path:
    """A fresh, unchanged copy of the SDK's sdist; its root (with examples/ and src/)."""
    assert SDIST.is_file(), f"{SDIST} is missing: scripts/test fetches it (bash scripts/sdk-examples)"
    with tarfile.open(SDIST) as tar:
        tar.extractall(dest, filter="data")
    return dest / f"claude_agent_sdk-{SDK_VERSION}"


def example_scripts() -> set[str]:
    """The top-level scripts of the sdist's examples/."""
    assert SDIST.is_file(), f"{SDIST} is missing: scripts/test fetches it (bash scripts/sdk-examples)"
    with tarfile.open(SDIST) as tar:
        names = [n.split("/examples/", 1)[1] for n in tar.getnames() if "/examples/" in n]
    return {n for n in names if "/" not in n and n.endswith(".py")}


def claude_on_path(bin_dir: Path) -> Path:
    """`claude` → agentcli's console script, the way a user points unchanged SDK apps at agentcli."""
    import claude_agent_sdk

    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    assert not bundled.exists(), f"{bundled}: the SDK would run it, not agentcli; bash scripts/sdk-examples reinstalls"
    agentcli = Path(sys.executable).parent / "agentcli"
    assert agentcli.is_file(), f"{agentcli} is missing: install agentcli into this venv (pip install -e .)"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "claude").symlink_to(agentcli)
    return bin_dir


def local_profile(home: Path, fake: FakeLLM) -> None:
    """The user's config: a llama.cpp server (the fake) is the default, and any model name an app asks for runs
    the local model."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "llamacpp/{LOCAL_MODEL}"\n\n'
        f'[providers.llamacpp]\nbase_url = "{fake.openai_url}"\n\n'
        f'[model_overrides]\n"*" = "llamacpp/{LOCAL_MODEL}"\n'
    )
    fake.n_ctx = 32768  # llama.cpp's GET /props
    fake.get_routes["/v1/models"] = {"object": "list", "data": [{"id": LOCAL_MODEL, "object": "model"}]}


@dataclass
class Ran:
    code: int
    out: str
    err: str
    root: Path
    fake: FakeLLM

    def sent(self) -> list[dict[str, Any]]:
        """The bodies of the chat requests, in order (not llama.cpp's template probe)."""
        return [r.body for r in self.fake.requests if r.path.endswith("/chat/completions") and isinstance(r.body, dict)]

    def sent_text(self) -> str:
        return "\n".join(json.dumps(b, ensure_ascii=False) for b in self.sent())


def run_example(tmp_path: Path, fake: FakeLLM, script: str, args: tuple[str, ...], rules: list[Rule],
                timeout: float = 90) -> tuple[Ran, Responder]:
    root = unpack(tmp_path / "sdk")
    home = Path(os.environ["AGENTCLI_HOME"])
    local_profile(home, fake)
    responder = Responder(rules)
    fake.responder = responder
    env = {k: v for k, v in os.environ.items()
           if not k.endswith(("_API_KEY", "_BASE_URL", "_AUTH_TOKEN")) and not k.startswith("CLAUDE")}
    env["PATH"] = f"{claude_on_path(tmp_path / 'bin')}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(tmp_path / "home")
    env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.run([sys.executable, f"examples/{script}", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return Ran(proc.returncode, proc.stdout, proc.stderr, root, fake), responder


def in_order(text: str, parts: list[str]) -> None:
    """Each of `parts` appears in `text`, in this order."""
    at = 0
    for part in parts:
        found = text.find(part, at)
        assert found >= 0, f"{part!r} missing (after offset {at}) in:\n{text}"
        at = found + len(part)


Check = Callable[[Ran], None]
