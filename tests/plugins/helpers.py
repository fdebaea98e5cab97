"""A real public marketplace (anthropics/skills, trimmed: tests/plugins/data) laid out in a temp folder, as a
folder or as a local git repository."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.skills.helpers import place

DATA = Path(__file__).parent / "data"


def marketplace(folder: Path, *, git: bool = False) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True)
    shutil.copy(DATA / "marketplace.json", folder / ".claude-plugin" / "marketplace.json")
    place(folder / "skills")
    if git:
        commit(folder, "init", init=True)
    return folder


def commit(folder: Path, message: str, *, init: bool = False) -> None:
    if init:
        subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(["git", "add", "-A"], cwd=folder, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], cwd=folder,
                   check=True)


def kit_plugin(market: Path, marker: Path) -> None:
    """A plugin of every part, added to the marketplace `market`: a command, an agent, a skill, a hook (appends
    to `marker`) and an MCP server (tests/mcp/servers/writer.py, the official SDK)."""
    root = market / "plugins" / "kit"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "kit", "version": "1.0.0",
                                                                  "description": "every part"}))
    (root / "commands").mkdir()
    (root / "commands/hello.md").write_text("---\ndescription: greet\n---\nSay hello to $ARGUMENTS from kit.\n")
    (root / "agents").mkdir()
    (root / "agents/helper.md").write_text("---\nname: helper\ndescription: helps\n---\nYou help.\n")
    (root / "skills/greet").mkdir(parents=True)
    (root / "skills/greet/SKILL.md").write_text("---\nname: greet\ndescription: greets people\n---\nGreet warmly.\n")
    (root / "hooks").mkdir()
    (root / "hooks/hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": f"echo ran >> {marker}"}]}]}}))
    shutil.copy(Path(__file__).parents[1] / "mcp/servers/writer.py", root / "server.py")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"writer": {
        "command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}}}))
    listing = market / ".claude-plugin/marketplace.json"
    data = json.loads(listing.read_text())
    data["plugins"].append({"name": "kit", "source": "./plugins/kit", "description": "every part"})
    listing.write_text(json.dumps(data, indent=1))
