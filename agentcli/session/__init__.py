"""Sessions: append-only JSONL transcripts with fork, resume, rewind and file checkpoints.

Entry points: `store.open_session` (the runtime), `reader.load` / `reader.iter_replay` (resume replay),
`store.fork`, `rewind.plan_rewind` / `rewind.apply_rewind`, `index.list_sessions`. Format: docs/session-format.md.
"""
