"""The one error tree. Every failure a user can see is one of these, with a stable `code`.

    AgentCliError                    code            exit
    ├── UsageError                   usage           2   bad flags / arguments
    ├── ConfigError                  config          2   unreadable or invalid config, no provider
    ├── ProviderError                                    raised by provider adapters (converted at the boundary)
    │   ├── AuthError                auth            2   missing / rejected API key
    │   ├── RateLimitError           rate_limit      75  retryable
    │   ├── OverloadedError          overloaded      75  retryable (HTTP 529 / 503)
    │   ├── ProviderTimeoutError     timeout         75  retryable
    │   ├── UnavailableError         unavailable     75  retryable (5xx, connection refused / dropped)
    │   ├── ContextOverflowError     context_overflow 1
    │   ├── BadRequestError          bad_request     1
    │   └── StreamError              stream_error    1   malformed or broken stream after output began
    ├── PermissionDeniedError        permission_denied 3
    ├── McpAuthError                 mcp_auth        1   an MCP server's OAuth login did not complete
    ├── LimitReachedError            max_turns / max_budget_usd / max_tool_calls  4
    └── SessionError                 session_*       1   (subclasses choose their own code)

The CLI maps `exit_status` to the process exit code and prints `message` (plus `hint`), never a traceback.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the thin `--attach` client imports this without typing (~6 ms)
if TYPE_CHECKING:
    from typing import ClassVar


class AgentCliError(Exception):
    """Base of every error agentcli reports. `hint` names the fix (an env var, a flag)."""

    code: ClassVar[str] = "error"
    exit_status: ClassVar[int] = 1
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if code is not None:
            self.code = code  # type: ignore[misc]

    def one_line(self) -> str:
        """The message users see: what went wrong and, when known, how to fix it; never a secret's shape
        (a key echoed by a server, a proxy URL's password)."""
        from agentcli.redact import redact

        return redact(f"{self.message} — {self.hint}" if self.hint else self.message)

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.one_line()}


class UsageError(AgentCliError):
    code = "usage"
    exit_status = 2


class ConfigError(AgentCliError):
    code = "config"
    exit_status = 2


class ProviderError(AgentCliError):
    """A failure talking to a model provider. `status` is the HTTP status when there was one."""

    code = "provider_error"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint, code=code)
        self.status = status
        self.retry_after = retry_after


class AuthError(ProviderError):
    code = "auth"
    exit_status = 2


class RateLimitError(ProviderError):
    code = "rate_limit"
    exit_status = 75
    retryable = True


class OverloadedError(ProviderError):
    code = "overloaded"
    exit_status = 75
    retryable = True


class ProviderTimeoutError(ProviderError):
    code = "timeout"
    exit_status = 75
    retryable = True


class UnavailableError(ProviderError):
    code = "unavailable"
    exit_status = 75
    retryable = True


class ContextOverflowError(ProviderError):
    code = "context_overflow"


class BadRequestError(ProviderError):
    code = "bad_request"


class StreamError(ProviderError):
    code = "stream_error"


class McpAuthError(AgentCliError):
    code = "mcp_auth"
    exit_status = 1


class PermissionDeniedError(AgentCliError):
    code = "permission_denied"
    exit_status = 3


class LimitReachedError(AgentCliError):
    """A guard stopped the run: `code` is max_turns, max_budget_usd or max_tool_calls."""

    code = "max_turns"
    exit_status = 4


class SessionError(AgentCliError):
    code = "session_error"


class SessionLockedError(SessionError):
    code = "session_locked"
    exit_status = 1


class SessionNotFoundError(SessionError):
    code = "session_not_found"
    exit_status = 2
