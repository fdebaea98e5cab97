"""Below tools/: process groups, safe git and schema validation, used by tools, the sandbox, hooks and sessions."""
