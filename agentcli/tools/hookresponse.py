"""`tool_response` for PostToolUse hooks in Claude Code's per-tool shape, so a hook written for Claude Code reads
the fields it expects (`.tool_response.filePath`, `.tool_response.stdout`, …).

Built from what the tool returned (its text for the model, its metadata). Where agentcli has no such value, the
field says so plainly instead of inventing one: Bash's output is one combined stream (agentcli runs commands
with stderr joined to stdout), so it is all in `stdout` and `stderr` is empty; no patch hunks are kept, so
`structuredPatch` is empty. Tools without a documented shape get `{"content", "success"}`.
"""

from __future__ import annotations

from typing import Any


def tool_response(tool: str, args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    shape = _SHAPES.get(tool)
    out = shape(args, content, meta) if shape is not None else {"content": content, "success": True}
    if "filePath" not in out and isinstance(args.get("file_path"), str):
        out["filePath"] = str(meta.get("path") or args["file_path"])
    return out


def _path(args: dict[str, Any], meta: dict[str, Any]) -> str:
    return str(meta.get("path") or args.get("file_path") or "")


def _bash(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"stdout": content, "stderr": "", "interrupted": bool(meta.get("timed_out")),
                           "isImage": False}
    if meta.get("background_id"):
        out["backgroundTaskId"] = meta["background_id"]
    return out


def _write(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "create" if meta.get("created") else "update", "filePath": _path(args, meta),
            "content": args.get("content", ""), "structuredPatch": [], "success": True}


def _edit(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"filePath": _path(args, meta), "oldString": args.get("old_string", ""),
            "newString": args.get("new_string", ""), "replaceAll": bool(args.get("replace_all")),
            "userModified": False, "structuredPatch": [], "success": True}


def _read(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    start = int(meta.get("start") or 1)
    end = int(meta.get("end") or start)
    return {"type": "text", "file": {"filePath": _path(args, meta), "content": content,
                                     "numLines": max(0, end - start + 1) if "end" in meta else 0,
                                     "startLine": start, "totalLines": int(meta.get("total_lines") or 0)}}


def _glob(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    names = [line for line in content.splitlines() if line and int(meta.get("count") or 0)]
    return {"filenames": names, "numFiles": int(meta.get("count") or 0), "truncated": False}


def _grep(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    mode = str(meta.get("mode") or "files_with_matches")
    lines = [line for line in content.splitlines() if line] if "files" in meta or mode != "files_with_matches" else []
    out: dict[str, Any] = {"mode": mode, "numFiles": int(meta.get("files") or 0)}
    if mode == "files_with_matches":
        out["filenames"] = lines
    else:
        out.update(content=content, numLines=len(lines), filenames=[])
    return out


def _webfetch(args: dict[str, Any], content: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"result": content, "url": str(args.get("url", "")), "code": int(meta.get("status") or 200)}


_SHAPES = {"Bash": _bash, "Write": _write, "Edit": _edit, "Read": _read, "Glob": _glob, "Grep": _grep,
           "WebFetch": _webfetch}
