"""WebFetch, WebSearch and notebooks seen from outside: the real `agentcli -p`, local HTTP servers, real files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from agentcli.settings import trust
from tests.cli.helpers import ANTHROPIC, agentcli, git_repo, imported_modules, provider_env
from tests.fakes.script import Reply, ToolCall
from tests.fakes.server import FakeLLM
from tests.fakes.serving import PageHandler, serve_in_thread

PAGE = """<html><head><title>Docs</title><script>var x = 1;</script></head><body>
<h1>Parser guide</h1><p>Call <code>parse()</code> with a <a href="https://example.com/spec">spec</a>.</p>
<h2>Errors</h2><ul><li>ParseError</li></ul></body></html>"""


class Site:
    """A local web site: /page (HTML), /to-metadata (a redirect to the cloud metadata address), /search (SearXNG's
    JSON API), /image (a PNG)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        site = self

        class Handler(PageHandler):
            def do_GET(self) -> None:
                site.hits.append(self.path)
                path = urlsplit(self.path).path
                if path == "/page":
                    self.send_page("text/html; charset=utf-8", PAGE.encode())
                elif path == "/to-metadata":
                    self.redirect("http://169.254.169.254/latest/meta-data/")
                elif path == "/search":
                    q = parse_qs(urlsplit(self.path).query)["q"][0]
                    results = [{"title": f"About {q}", "url": "https://docs.example.org/a", "content": "first hit"},
                               {"title": "Blocked one", "url": "https://spam.example.net/b", "content": "spam"}]
                    self.send_page("application/json", json.dumps({"results": results}).encode())
                elif path == "/image":
                    self.send_page("image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
                else:
                    self.send_page("text/plain", b"no", 404)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        serve_in_thread(self.server)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.server.shutdown()
    s.server.server_close()


def fetch_run(proj: Path, fake: FakeLLM, url: str, *flags: str) -> tuple[Any, str]:
    fake.push(Reply(tool_calls=[ToolCall("WebFetch", {"url": url, "prompt": "what does it say about errors?"})]),
              Reply(text="ok"))
    run = agentcli(["-p", "read the docs", "--model", ANTHROPIC, "--output-format", "json", *flags], proj,
                   provider_env(fake, ANTHROPIC))
    return run, json.dumps(fake.requests[-1].body["messages"][-1])


def test_webfetch_returns_markdown_with_headings_and_links(tmp_path: Path, fake_llm: FakeLLM, site: Site) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    run, seen = fetch_run(proj, fake_llm, site.url("/page"), "--allowedTools", "WebFetch(domain:127.0.0.1)")
    assert run.status == 0, run.stderr
    assert "# Parser guide" in seen and "## Errors" in seen
    assert "[spec](https://example.com/spec)" in seen and "var x = 1" not in seen


def test_webfetch_refuses_private_addresses_without_a_rule_naming_them(
    tmp_path: Path, fake_llm: FakeLLM, site: Site
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    for url in (site.url("/page"), site.url("/page", "localhost"), f"http://2130706433:{site.port}/page"):
        _, seen = fetch_run(proj, fake_llm, url, "--permission-mode", "bypassPermissions")
        assert "WebFetch refused" in seen and "private, loopback or link-local" in seen, (url, seen)
    assert site.hits == []


def test_a_redirect_to_the_metadata_address_is_refused(tmp_path: Path, fake_llm: FakeLLM, site: Site) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    _, seen = fetch_run(proj, fake_llm, site.url("/to-metadata"), "--allowedTools", "WebFetch(domain:127.0.0.1)")
    assert "WebFetch refused" in seen and "169.254.169.254" in seen
    assert site.hits == ["/to-metadata"]


def test_webfetch_refuses_binary_content_and_other_schemes(tmp_path: Path, fake_llm: FakeLLM, site: Site) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    _, seen = fetch_run(proj, fake_llm, site.url("/image"), "--allowedTools", "WebFetch(domain:127.0.0.1)")
    assert "image/png, not a text page" in seen
    _, seen = fetch_run(proj, fake_llm, "file:///etc/passwd", "--permission-mode", "bypassPermissions")
    assert "only http and https" in seen and "root:" not in seen


def test_websearch_through_a_configured_backend_with_domain_filters(
    tmp_path: Path, fake_llm: FakeLLM, site: Site
) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    (proj / ".agentcli").mkdir()
    (proj / ".agentcli" / "settings.local.toml").write_text(
        f'[web_search]\nbackend = "searxng"\nurl = "{site.url("")}"\n')
    trust.trust(proj)
    fake_llm.push(Reply(tool_calls=[ToolCall("WebSearch", {"query": "parser errors",
                                                           "blocked_domains": ["spam.example.net"]})]),
                  Reply(text="found"))
    run = agentcli(["-p", "search", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    seen = json.dumps(fake_llm.requests[-1].body["messages"][-1])
    assert "About parser errors" in seen and "https://docs.example.org/a" in seen and "spam" not in seen
    assert "search backend: searxng" in seen


def test_websearch_without_a_backend_says_how_to_configure_one(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("WebSearch", {"query": "anything"})]), Reply(text="ok"))
    agentcli(["-p", "search", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert "[web_search] backend" in json.dumps(fake_llm.requests[-1].body["messages"][-1])


def test_notebook_read_and_edit_keep_a_valid_notebook(tmp_path: Path, fake_llm: FakeLLM) -> None:
    import nbformat

    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title", id="intro"),
                nbformat.v4.new_code_cell("x = 1\nprint(x)", id="calc",
                                          outputs=[nbformat.v4.new_output("stream", text="1\n")]),
                nbformat.v4.new_code_cell("y = 2", id="extra")]
    path = proj / "work.ipynb"
    nbformat.write(nb, path)
    fake_llm.push(
        Reply(tool_calls=[ToolCall("Read", {"file_path": "work.ipynb"})]),
        Reply(tool_calls=[ToolCall("NotebookEdit", {"notebook_path": "work.ipynb", "cell_id": "calc",
                                                    "new_source": "x = 41 + 1"})]),
        Reply(tool_calls=[ToolCall("NotebookEdit", {"notebook_path": "work.ipynb", "cell_id": "intro",
                                                    "new_source": "## Notes", "cell_type": "markdown",
                                                    "edit_mode": "insert"})]),
        Reply(tool_calls=[ToolCall("NotebookEdit", {"notebook_path": "work.ipynb", "cell_id": "extra",
                                                    "new_source": "", "edit_mode": "delete"})]),
        Reply(text="edited"),
    )
    run = agentcli(["-p", "edit", "--model", ANTHROPIC, "--permission-mode", "acceptEdits"], proj,
                   provider_env(fake_llm, ANTHROPIC))
    assert run.status == 0, run.stderr
    shown = json.dumps(fake_llm.requests[1].body["messages"][-1])
    assert 'cell id=\\"calc\\"' in shown and "print(x)" in shown and "<outputs" in shown
    after = nbformat.read(path, as_version=4)
    nbformat.validate(after)
    assert [c.source for c in after.cells] == ["# Title", "## Notes", "x = 41 + 1"]
    assert after.cells[2].outputs == [] and after.cells[1].cell_type == "markdown"


def test_no_web_tool_used_imports_no_web_library(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proj = git_repo(tmp_path / "proj", {"a.py": "a\n"})
    fake_llm.push(Reply(tool_calls=[ToolCall("Read", {"file_path": "a.py"})]), Reply(text="ok"))
    imported = imported_modules(["-p", "read", "--model", ANTHROPIC], proj, provider_env(fake_llm, ANTHROPIC))
    assert not any(m.startswith(("html_to_markdown", "nbformat", "agentcli.tools.web")) for m in imported)
