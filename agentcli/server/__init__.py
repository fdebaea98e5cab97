"""`agentcli serve`: an HTTP API over warm agentcli sessions (loopback and a bearer token by default), and the
thin `--attach` client that runs turns on it.

Modules: `token` (the token file in agentcli's home, 0600; constant-time checks), `hub` (served sessions: one
Driver each, their watchers and pending permission questions), `app` (the routes, SSE in the stream-json
schema, the OpenAPI description), `run` (bind checks and uvicorn), `attach` (the thin client: httpx only)."""
