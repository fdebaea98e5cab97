"""`@path` imports in memory files, nested memory files, and what an import must never read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.assembly.memory import NestedMemoryFiles, load_memory


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("STYLE-RULES: four spaces\n@../docs/deeper.md")
    (root / "docs" / "deeper.md").write_text("DEEPER-RULES")
    return root


def test_relative_and_nested_imports_expand_in_place(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("Follow @docs/style.md please.\n")
    text = load_memory(repo, repo).text
    assert "STYLE-RULES" in text and "DEEPER-RULES" in text
    assert text.index("Follow") < text.index("STYLE-RULES") < text.index("please.")


def test_imports_are_cycle_safe_and_depth_limited(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("@a.md")
    (repo / "a.md").write_text("A-TEXT @b.md")
    (repo / "b.md").write_text("B-TEXT @a.md @AGENTS.md")
    text = load_memory(repo, repo).text
    assert text.count("A-TEXT") == 1 and text.count("B-TEXT") == 1
    for i in range(8):
        (repo / f"d{i}.md").write_text(f"LEVEL-{i} @d{i + 1}.md")
    (repo / "AGENTS.md").write_text("@d0.md")
    text = load_memory(repo, repo).text
    assert "LEVEL-4" in text and "LEVEL-5" not in text


def test_code_and_addresses_are_not_imports(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("Mail ana@docs/style.md or run `cat @docs/style.md`\n```\n@docs/style.md\n```\n")
    text = load_memory(repo, repo).text
    assert "STYLE-RULES" not in text and "`cat @docs/style.md`" in text


@pytest.mark.parametrize("ref", ["../outside.md", "/etc/hostname", "~/notes.md", ".env", ".git/config",
                                 "keys/id_rsa", "link.md", "~/.ssh/id_ed25519", "sub/.aws/credentials", "fifo"])
def test_a_project_file_cannot_import_secrets_or_escape(repo: Path, ref: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_home = repo.parent / "userhome"
    (fake_home / ".ssh").mkdir(parents=True)
    (fake_home / ".ssh" / "id_ed25519").write_text("SECRET-SSH")
    (fake_home / "notes.md").write_text("SECRET-HOME")
    monkeypatch.setenv("HOME", str(fake_home))
    (repo.parent / "outside.md").write_text("SECRET-OUTSIDE")
    (repo / ".env").write_text("SECRET-ENV")
    (repo / ".git" / "config").write_text("SECRET-GITCONFIG")
    (repo / "keys").mkdir()
    (repo / "keys" / "id_rsa").write_text("SECRET-KEY")
    (repo / "sub" / ".aws").mkdir(parents=True)
    (repo / "sub" / ".aws" / "credentials").write_text("SECRET-AWS")
    (repo / "link.md").symlink_to(repo.parent / "outside.md")
    os.mkfifo(repo / "fifo")
    (repo / "AGENTS.md").write_text(f"rules @{ref}\n")
    text = load_memory(repo, repo).text
    assert "SECRET" not in text and f"@{ref}" in text


def test_the_users_own_file_may_import_from_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent_home = Path(os.environ["AGENTCLI_HOME"])
    agent_home.mkdir(parents=True, exist_ok=True)
    fake_home = tmp_path / "userhome"
    fake_home.mkdir()
    (fake_home / "prefs.md").write_text("MY-PREFS")
    (fake_home / ".env").write_text("SECRET-ENV")
    monkeypatch.setenv("HOME", str(fake_home))
    (agent_home / "AGENTS.md").write_text("@~/prefs.md @~/.env")
    (agent_home / "team.md").write_text("TEAM-RULES")
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text(f"@{agent_home}/team.md")
    text = load_memory(project, project).text
    assert "MY-PREFS" in text and "TEAM-RULES" in text and "SECRET" not in text


def test_nested_memory_is_picked_up_once_when_the_agent_works_there(repo: Path) -> None:
    (repo / "pkg" / "mod").mkdir(parents=True)
    (repo / "pkg" / "AGENTS.md").write_text("PKG-RULES")
    (repo / "pkg" / "mod" / "CLAUDE.md").write_text("MOD-RULES @../../docs/deeper.md")
    nested = NestedMemoryFiles(repo, repo)
    assert nested(["README.md"]) == []
    found = nested(["pkg/mod/x.py"])
    assert len(found) == 2 and "PKG-RULES" in found[0] and "MOD-RULES" in found[1] and "DEEPER-RULES" in found[1]
    assert nested([str(repo / "pkg" / "y.py"), "pkg/mod"]) == []
    assert nested([str(repo.parent)]) == [] and nested(["/etc/passwd"]) == []
    assert nested(["pkg/\0x.py", "~nobody-such-user/x", "a" * 5000 + "/b"]) == []  # hostile paths: nothing, no error
    assert len(nested.texts()) == 2


def test_imports_have_a_total_budget(repo: Path) -> None:
    for i in range(40):
        (repo / f"m{i}.md").write_text(f"PART-{i} " + "x" * 5_000)
    (repo / "AGENTS.md").write_text(" ".join(f"@m{i}.md" for i in range(40)))
    text = load_memory(repo, repo).text
    assert "PART-0 " in text and "PART-39" not in text and "not imported" in text
    assert len(text) < 100_000
