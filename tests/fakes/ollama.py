"""Ollama native API (`POST /api/chat`, NDJSON) plus the model endpoints a client probes
(`GET /api/tags`, `POST /api/show`, `GET /v1/models`), answered without consuming the script."""

from __future__ import annotations

from http.server import ThreadingHTTPServer
from typing import Any

from tests.fakes.render import Ids, dumps, register
from tests.fakes.script import Fault, Reply, split
from tests.fakes.server import FakeLLM, _Handler
from tests.fakes.serving import serve_in_thread

_DONE = {"end_turn": "stop", "tool_use": "stop", "max_tokens": "length"}
_ROLES = ("system", "user", "assistant", "tool")


def _line(obj: Any) -> bytes:
    return (dumps(obj) + "\n").encode()


class OllamaChatRenderer:
    content_type = "application/x-ndjson"

    def is_stream(self, request: dict[str, Any], path: str) -> bool:
        return bool(request.get("stream", True))  # Ollama streams unless told not to

    def stream(self, reply: Reply, request: dict[str, Any], ids: Ids) -> list[bytes]:
        model = reply.model or request.get("model", "llama-fake")

        def msg(**fields: Any) -> bytes:
            message = {"role": "assistant", "content": "", **fields}
            return _line({"model": model, "created_at": "2025-01-01T00:00:00Z", "message": message, "done": False})

        frames = [msg(thinking=p) for p in split(reply.thinking, reply.chunk_size)]
        frames += [msg(content=p) for p in reply.text_pieces()]
        for c in reply.tool_calls:
            frames.append(msg(tool_calls=[{"function": {"name": c.name, "arguments": c.args}}]))
        pieces = len(frames)
        frames.append(_line(self._final(reply, model, pieces)))
        return frames

    @staticmethod
    def _final(reply: Reply, model: str, pieces: int) -> dict[str, Any]:
        u = reply.usage
        return {
            "model": model,
            "created_at": "2025-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": _DONE.get(reply.final_stop_reason(), "stop"),
            "total_duration": 1_000_000,
            "load_duration": 1000,
            "prompt_eval_count": u.input_tokens,
            "prompt_eval_duration": 1000,
            "eval_count": u.output_tokens if u.output_tokens is not None else max(1, pieces),
            "eval_duration": 1000,
        }

    def stream_error(self, fault: Fault) -> bytes:
        return _line({"error": fault.message})

    def error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        return {"error": message}

    def complete(self, reply: Reply, request: dict[str, Any], ids: Ids) -> dict[str, Any]:
        model = reply.model or request.get("model", "llama-fake")
        final = self._final(reply, model, 1)
        final["message"] = {"role": "assistant", "content": "".join(reply.text_pieces()),
                            "thinking": reply.thinking or None,
                            "tool_calls": [{"function": {"name": c.name, "arguments": c.args}}
                                           for c in reply.tool_calls] or None}
        return final

    def validate(self, request: dict[str, Any]) -> list[str]:
        return validate_chat(request)


def validate_chat(req: dict[str, Any]) -> list[str]:
    """What Ollama's /api/chat rejects (or silently mishandles) that a client can get wrong."""
    errs: list[str] = []
    if not req.get("model"):
        errs.append("model is required")
    for i, m in enumerate(req.get("messages") or []):
        if m.get("role") not in _ROLES:
            errs.append(f"messages[{i}].role: invalid {m.get('role')!r}")
        if not isinstance(m.get("content", ""), str):
            errs.append(f"messages[{i}].content must be a string")
        for tc in m.get("tool_calls") or []:
            if not isinstance((tc.get("function") or {}).get("arguments"), dict):
                errs.append(f"messages[{i}].tool_calls: arguments must be a JSON object, not a string")
        if m.get("role") == "tool" and not m.get("tool_name"):
            errs.append(f"messages[{i}]: tool messages should name their tool (tool_name)")
    for t in req.get("tools") or []:
        if t.get("type") != "function" or not (t.get("function") or {}).get("name"):
            errs.append("tools: each needs type 'function' and function.name")
    opts = req.get("options") or {}
    for key in ("num_ctx", "num_predict"):
        if key in opts and not isinstance(opts[key], int):
            errs.append(f"options.{key} must be an integer")
    return errs


register("/api/chat", OllamaChatRenderer())


class FakeOllama(FakeLLM):
    """The fake LLM, also answering Ollama's model endpoints from `models` (name → context length;
    `modelfile_ctx` gives a Modelfile num_ctx, `capabilities` what `/api/show` lists). `show_calls` counts
    `/api/show` requests."""

    def __init__(self, replies: Any = (), *, models: dict[str, int] | None = None,
                 modelfile_ctx: dict[str, int] | None = None,
                 capabilities: dict[str, list[str]] | None = None, **kw: Any) -> None:
        super().__init__(replies, **kw)
        self.models = dict(models if models is not None else {"llama-fake": 131072})
        self.modelfile_ctx = dict(modelfile_ctx or {})
        self.capabilities = dict(capabilities or {})
        self.show_calls = 0

    def start(self) -> FakeOllama:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _OllamaHandler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = serve_in_thread(server, 0.05)
        return self

    def __enter__(self) -> FakeOllama:
        return self.start()

    def show(self, model: str) -> tuple[int, dict[str, Any]]:
        self.show_calls += 1
        if model not in self.models:
            return 404, {"error": f"model '{model}' not found"}
        params = f"num_ctx {self.modelfile_ctx[model]}\nstop <|im_end|>" if model in self.modelfile_ctx else ""
        return 200, {"modelfile": "FROM x", "parameters": params, "template": "{{ .Prompt }}",
                     "details": {"family": "llama", "parameter_size": "1B", "quantization_level": "Q4_0"},
                     "model_info": {"general.architecture": "llama",
                                    "llama.context_length": self.models[model]},
                     "capabilities": self.capabilities.get(model, ["completion", "tools"])}


class _OllamaHandler(_Handler):
    @property
    def ollama(self) -> FakeOllama:
        return self.server.fake  # type: ignore[attr-defined, no-any-return]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/api/tags":
            models = [{"name": n, "model": n, "size": 1, "digest": "d", "modified_at": "2025-01-01T00:00:00Z",
                       "details": {"family": "llama", "parameter_size": "1B"}} for n in self.ollama.models]
            self._json(200, {"models": models})
        elif path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": n, "object": "model", "created": 0,
                                                         "owned_by": "library"} for n in self.ollama.models]})
        else:
            super().do_GET()

    def do_POST(self) -> None:
        if self.path.split("?", 1)[0] != "/api/show":
            super().do_POST()
            return
        import json

        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        status, obj = self.ollama.show(str(body.get("model") or body.get("name") or ""))
        self._json(status, obj)
