"""The vocabulary the agent loop and the provider adapters share, and nothing else: normalized messages
(`messages`), the events a model's stream is made of (`stream`), and one request plus the `Provider` protocol
(`request`). `core/` and `providers/` both import this package and never each other."""
