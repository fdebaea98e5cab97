"""OAuth end to end, as a user meets it: a `-p` run reports the server that needs a login (once, never silently
absent), `agentcli mcp list` and doctor say so, `agentcli mcp login` prints the authorization URL and opens it in
the user's BROWSER (a script that follows it with httpx) and finishes on its loopback listener. Using the login
(tools listed and called, reused and refreshed across restarts) is tests/mcp/test_oauth.py's, in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

from agentcli import paths
from agentcli.commands.mcp import main as mcp_main
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, provider_env
from tests.fakes.script import Reply
from tests.fakes.server import FakeLLM
from tests.mcp.servers.oauth import OAuthMcpServer


def test_needs_auth_is_reported_then_login_in_the_browser(tmp_path: Path, fake_llm: FakeLLM, capsys: object) -> None:
    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    with OAuthMcpServer() as srv:
        paths.home().mkdir(parents=True, exist_ok=True)
        paths.user_config_file().write_text(f'[mcp_servers.guarded]\ntype = "http"\nurl = "{srv.url}"\n')
        env = provider_env(fake_llm, ANTHROPIC)

        fake_llm.push(Reply(text="nothing to call"))
        run = agentcli(["-p", "go", "--model", ANTHROPIC, "--output-format", "stream-json", "--verbose"], proj, env,
                       timeout=120)
        assert run.status == 0, run.stderr
        assert run.lines()[0]["mcp_servers"] == [{"name": "guarded", "status": "needs-auth"}]  # Claude Code's word
        notices = [ln["text"] for ln in run.lines() if ln.get("subtype") == "notice" and "MCP server" in ln["text"]]
        assert notices == ["MCP server 'guarded' needs authentication: run `agentcli mcp login guarded` (or /mcp "
                           "login guarded in the REPL)"], run.stdout

        assert mcp_main(["-C", str(proj), "list"]) == 0
        listed = capsys.readouterr().out  # type: ignore[attr-defined]
        assert f"guarded  [user]  {srv.url}  ✗ needs-auth (needs authentication: run `agentcli mcp login " \
               "guarded`" in listed, listed

        from agentcli.mcp.health import doctor_lines
        from agentcli.settings.config import load_settings

        doctor = doctor_lines(load_settings(proj, {}))
        assert any(ln.startswith("  guarded [user] ") and ln.endswith("needs-auth (needs authentication: run `agentcli "
                                                                      "mcp login guarded` (or /mcp login guarded in "
                                                                      "the REPL))") for ln in doctor), doctor

        # The user's browser (BROWSER, as Python's webbrowser reads it): follows the page to its end, as a person
        # clicking "Allow" would, and keeps what it was shown.
        browser = tmp_path / "browser"
        browser.write_text(f"#!{sys.executable}\nimport sys, httpx\n"
                           "page = httpx.get(sys.argv[1], follow_redirects=True, timeout=30)\n"
                           "open(sys.argv[0] + '.page', 'w').write(sys.argv[1] + '\\n' + page.text)\n")
        browser.chmod(0o755)
        login = subprocess.run([sys.executable, "-m", "agentcli", "mcp", "login", "guarded", "--timeout", "60"],
                               cwd=proj, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
                               env={**os.environ, "BROWSER": str(browser)})
        assert login.returncode == 0, login.stderr
        opened, page = (tmp_path / "browser.page").read_text().split("\n", 1)
        assert page == "agentcli is logged in. You can close this page."
        out = login.stdout
        assert out == (f"To log in to MCP server 'guarded', open this page in your browser:\n  {opened}\n"
                       "(opened in your browser)\nLogged in to MCP server 'guarded' (1 tools)\n") and login.stderr == ""
        assert opened.startswith(f"http://127.0.0.1:{srv.port}/authorize?response_type=code&client_id=")

        # The login is stored for the URL, where the next run (tests/mcp/test_oauth.py: in-process) finds it, and
        # the token itself is nowhere the user or the model sees.
        token = json.loads(next((paths.home() / "mcp-auth").iterdir()).read_text())["tokens"]["access_token"]
        assert token in srv.provider.access
        assert all(token not in json.dumps(r.body) for r in fake_llm.requests)
        assert token not in run.stdout + run.stderr + out + listed

        capsys.readouterr()  # type: ignore[attr-defined]
        assert mcp_main(["-C", str(proj), "logout", "guarded"]) == 0
        assert capsys.readouterr().out == "Logged out of MCP server 'guarded'\n"  # type: ignore[attr-defined]
        assert list((paths.home() / "mcp-auth").iterdir()) == []


def test_repl_mcp_login(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """`/mcp login NAME` prints the URL whole (one line to copy: the terminal wraps it), the browser's answer
    completes it, and the server is connected with its tools."""
    import re

    from tests.ui.ptyterm import Term, child_env

    proj = git_repo(tmp_path / "proj", {"README.md": "x\n"})
    with OAuthMcpServer() as srv:
        paths.home().mkdir(parents=True, exist_ok=True)
        paths.user_config_file().write_text(f'[mcp_servers.guarded]\ntype = "http"\nurl = "{srv.url}"\n')
        term = Term(["--model", "openai/fake-model"], proj, child_env(fake_llm.openai_url, BROWSER=""))
        try:
            term.prompt()
            term.line("/mcp login guarded")
            term.expect("open this page in your browser:")
            shown = term.expect(r"http://127\.0\.0\.1:\d+/authorize\?\S+", regex=True)
            url = re.findall(r"http://127\.0\.0\.1:\d+/authorize\?\S+", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown))
            page = httpx.get(url[-1], follow_redirects=True, timeout=30)
            assert page.text == "agentcli is logged in. You can close this page."
            term.expect("Logged in to MCP server 'guarded' (1 tools)", timeout=60)
            term.prompt()
            term.line("/mcp")
            term.expect("guarded [connected, 1 tools]")
        finally:
            term.close()
