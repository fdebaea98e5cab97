"""A real stdio MCP server (official SDK) with the tools the MCP limits and elicitation tests call: a slow one, one
with a large result, and one that asks the user a question (`elicitation/create`)."""

from typing import Annotated

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, MCPServer, Resolve
from pydantic import BaseModel

server = MCPServer("kit")


class Colour(BaseModel):
    colour: str


@server.tool()
async def slow(seconds: float) -> str:
    """Answers after `seconds`."""
    await anyio.sleep(seconds)
    return "slept"


@server.tool()
def big(chars: int) -> str:
    """Answers with `chars` characters."""
    return "y" * chars


def colour(ctx: Context) -> Elicit[Colour]:
    return Elicit("Which colour?", Colour)


@server.tool()
async def ask(answer: Annotated[ElicitationResult[Colour], Resolve(colour)]) -> str:
    """Asks the user for a colour and says what came back."""
    data = answer.data.colour if isinstance(answer, AcceptedElicitation) else ""
    return f"action={answer.action} colour={data}"


if __name__ == "__main__":
    server.run("stdio")
