"""agentcli as the engine behind the Claude Agent SDK: `--input-format stream-json` and its control protocol.

The SDK (`claude-agent-sdk` on PyPI, wire format of version 0.2.x) starts agentcli as a subprocess with
`--output-format stream-json --input-format stream-json` and speaks JSON lines both ways:

    stdin  (SDK → agentcli)   {"type":"user","message":{"role":"user","content":"…"|[blocks]},…}
                              {"type":"control_request","request_id":"req_1_ab12","request":{"subtype":…}}
                              {"type":"control_response","response":{"subtype":"success"|"error",
                                                                      "request_id":"…","response":{…}|"error":"…"}}
                              {"type":"control_cancel_request","request_id":"…"}
    stdout (agentcli → SDK)   system/init, assistant, user, stream_event, result … (agentcli.output.printers,
                              shapes in agentcli.output.schema), and our own control_request / control_response.

Modules:
    channel   `ControlChannel`: the reader task over stdin, `request()` for what agentcli asks the SDK,
              `handle()` to register answers to what the SDK asks agentcli. The one writer of protocol lines.
    session   read stdin at once, build the agent when `initialize` (or a user line) comes, then run one turn
              per user message through the session's driver (agentcli.driver) until stdin closes.
    handlers  answers to initialize, interrupt, set_permission_mode, set_model, mcp_status, get_context_usage,
              rewind_files (through the Agent's command API).
    approver  `--permission-prompt-tool stdio`: every approval question becomes a `can_use_tool` request.
    hooks     hooks registered in code (`initialize.hooks`): `hook_callback` requests, decided like command hooks,
              for the main agent and its subagents (they wrap the configured hooks at build).
    agents    subagents defined in code (`initialize.agents`), added to the session's definitions.
    inbound   stdin user lines → Message.

For other rooms (build on these, not on the internals):

- An in-process SDK MCP server (`mcp_servers={"name": {"type": "sdk", …}}`, issue 18 / sdkmcp): the session's
  channel's `request` is given to `build(…, sdk_request=)`, which hands it to the MCP manager before any
  connection task runs (also to one made when `initialize` declares servers after the build). An MCP
  transport sends each JSON-RPC message with
  `await channel.request("mcp_message", {"server_name": name, "message": jsonrpc})`, which returns the SDK's
  `response` object, i.e. `{"mcp_response": {...JSON-RPC reply...}}`; it raises `ControlError` when the SDK
  answers with an error, when stdin closed, or after `timeout` seconds. The names the SDK declared are in
  `channel.sdk_mcp_servers` after `initialize` (from `--mcp-config` entries of `"type": "sdk"`).
- Messages out (sdkflags: `structured_output`, new result fields): every stdout line is produced by
  `agentcli.output.printers.StreamJsonPrinter` from the agent's events, through `agentcli.output.schema`;
  add fields there. Control lines are written by `ControlChannel.send` only.

Security: the channel's lines come only from the SDK's own pipe, which is moved off fd 0/1 when the session
starts (children inherit /dev/null and stderr instead), so no tool process can read or forge a control line.
What the SDK answers (an allowed call's `updatedInput`) still passes the schema check, the policy and the sandbox.
"""
