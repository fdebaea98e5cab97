"""`agentcli acp`: agentcli as an Agent Client Protocol agent over stdio (Zed's ACP), on the official Python SDK
(`agent-client-protocol`, imported only here).

A consumer of agentcli.driver: each ACP session is one `Driver`; a prompt turn is `driver.run(...)`, its events
mapped to `session/update` notifications (agentcli.acp.updates); questions go to the client as
`session/request_permission` (agentcli.acp.approver); `session/cancel` is `driver.interrupt()`.

Modules: `agent` (the ACP Agent: initialize, sessions, prompt, cancel, modes), `updates` (events → updates),
`approver` (permission requests), `settings` (an ACP session's Settings: cwd, session id, the client's MCP
servers), `files` (the file tools' text through the client's file system), `commands` (slash commands advertised
and run), `doctor` (its line in `agentcli doctor`)."""
