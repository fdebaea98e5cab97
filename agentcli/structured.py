"""Structured output (`--json-schema`, the SDK's `output_format`): the run's final answer is JSON valid against
the caller's schema, carried by the result as `structured_output`.

How, as Claude Code does it: the model gets one more tool, `StructuredOutput`, whose input schema is the caller's
schema, and is told to call it once at the end. A tool works with every provider agentcli speaks (local models
included, whose tool calls may arrive as text), where native structured output (OpenAI's `response_format`,
Gemini's `responseSchema`) exists for some providers only and cannot be combined with tool calls everywhere.
The tool's input is validated with `jsonschema` (the full standard, not the subset tool arguments are checked
with); an invalid one goes back to the model as an error result, and a reply that ends without the call gets
a reminder. After MAX_ATTEMPTS failed attempts the run ends with subtype `error_max_structured_output_retries`.

A schema whose top level is not an object (tool inputs must be objects) is wrapped as `{"output": <schema>}`
and unwrapped again. `jsonschema` (~150 ms to import) is loaded only for a run that has a schema.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentcli.errors import AgentCliError, UsageError
from agentcli.llm.messages import ToolUseBlock
from agentcli.tools.base import ToolContext, ToolOutput

TOOL_NAME = "StructuredOutput"
MAX_ATTEMPTS = 5
WRAP_KEY = "output"

DESCRIPTION = (
    "Give your final answer in the structured format the user asked for. When the task is done, call this tool "
    "exactly once with the answer as its input; its input schema is the required format. Do not end your turn "
    "without calling it."
)
REMINDER = (f"You ended your turn without calling the {TOOL_NAME} tool. The answer must be given by calling "
            f"{TOOL_NAME} with input that matches its schema. Call it now.")


class StructuredOutputError(AgentCliError):
    """The model did not give a valid structured output within MAX_ATTEMPTS attempts."""

    code = "structured_output_retries"
    exit_status = 1


def check_schema(schema: dict[str, Any]) -> None:
    """Refuse a schema that is not a valid JSON Schema (UsageError, code bad_json_schema)."""
    from jsonschema import exceptions, validators

    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except exceptions.SchemaError as err:
        where = "/".join(str(p) for p in err.absolute_path) or "top level"
        raise UsageError(f"--json-schema is not a valid JSON Schema ({where}): {err.message}",
                         code="bad_json_schema") from err


def wraps(schema: dict[str, Any]) -> bool:
    return schema.get("type") != "object"


def tool_schema(schema: dict[str, Any]) -> dict[str, Any]:
    if not wraps(schema):
        return schema
    return {"type": "object", "properties": {WRAP_KEY: schema}, "required": [WRAP_KEY], "additionalProperties": False}


class StructuredOutput:
    """The run's structured-output state: the accepted value and the attempts so far. The agent loop asks it
    after each reply (see agentcli.core.loop's FinalOutput)."""

    def __init__(self, schema: dict[str, Any], max_attempts: int = MAX_ATTEMPTS) -> None:
        from jsonschema import validators

        self.schema = schema
        self.max_attempts = max_attempts
        self.attempts = 0
        self.value: Any = None
        self.given = False
        self.last_problem: str | None = None
        self._validator = validators.validator_for(schema)(schema)

    def start(self) -> None:
        """Each run (each turn of an SDK client session) must give its own answer."""
        self.attempts, self.value, self.given, self.last_problem = 0, None, False, None

    def validate(self, args: dict[str, Any]) -> str | None:
        """None when `args` (the tool's input) is a valid output, which is then kept; else what is wrong."""
        value = args.get(WRAP_KEY) if wraps(self.schema) else args
        errors = sorted(self._validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        if errors:
            self.last_problem = "; ".join(_describe(e) for e in errors[:5])
            return self.last_problem
        self.value, self.given = value, True
        return None

    def seen(self, calls: Sequence[ToolUseBlock]) -> bool:
        """After a turn's tool calls ran: True when a valid output was given (the run ends now)."""
        self.attempts += sum(1 for c in calls if c.name == TOOL_NAME)
        if self.given:
            return True
        self._check_attempts()
        return False

    def missing(self) -> str | None:
        """The model ended its turn: None when the output was given, else the reminder to go on with."""
        if self.given:
            return None
        self.attempts += 1
        self._check_attempts()
        return REMINDER

    def _check_attempts(self) -> None:
        if self.attempts >= self.max_attempts:
            last = f"; last problem: {self.last_problem}" if self.last_problem else ""
            raise StructuredOutputError(
                f"Failed to provide valid structured output after {self.attempts} attempts{last}",
                hint="simplify the schema or use a stronger model")


def _describe(err: Any) -> str:
    where = "/".join(str(p) for p in err.absolute_path)
    return f"{where}: {err.message}" if where else str(err.message)


class StructuredOutputTool:
    """The `StructuredOutput` tool: its input is the run's answer."""

    def __init__(self, state: StructuredOutput) -> None:
        self.name = TOOL_NAME
        self.description = DESCRIPTION
        self.read_only, self.destructive, self.edits_files = True, False, False
        self.state = state
        self.input_schema = tool_schema(state.schema)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        problem = self.state.validate(args)
        if problem is not None:
            schema = json.dumps(self.input_schema, separators=(",", ":"))
            return ToolOutput.error(f"The output does not match the required schema: {problem}. "
                                    f"Call {TOOL_NAME} again with input valid against: {schema}")
        return ToolOutput("Structured output accepted.")
