"""What finding skills costs at start-up: 200 skills spread over 5 locations (the three user folders Claude Code,
the Agent Skills convention and Codex use, `$AGENTCLI_HOME/skills`, and a trusted project's `.claude/skills`),
each a real-sized SKILL.md; and the same search with no skills anywhere.

    .venv/bin/python bench/bench_skills.py --runs 50

Prints the median wall and CPU time of `find_skills` (the whole of what start-up does for skills: listing the
folders, reading each SKILL.md, parsing its front matter with PyYAML's C loader, checking the project's trust).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from agentcli.skills import trust
from agentcli.skills.catalog import find_skills
from agentcli.skills.discovery import project_sources

DESCRIPTION = ("Toolkit for interacting with and testing local web applications using Playwright. Supports "
               "verifying frontend functionality, debugging UI behavior, capturing browser screenshots.")
BODY = "# Instructions\n\n" + "Step: do the thing carefully and check the result.\n" * 80


def populate(base: Path) -> tuple[Path, Path]:
    home, project = base / "home", base / "proj"
    folders = [home / ".claude/skills", home / ".agents/skills", home / ".codex/skills",
               Path(os.environ["AGENTCLI_HOME"]) / "skills", project / ".claude/skills"]
    for i in range(200):
        skill = folders[i % 5] / f"skill-{i:03d}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: skill-{i:03d}\ndescription: {DESCRIPTION}\n"
                                        f"allowed-tools: Read, Grep\n---\n\n{BODY}")
        (skill / "reference.md").write_text(BODY)
    trust.trust(project, project_sources(project))
    return home, project


def timed(runs: int, project: Path, home: Path, expect: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds (CPU: on a loaded machine, wall time measures the others too)."""
    walls, cpus = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        found = find_skills(project, user_home=home)
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
        assert len(found.skills) == expect, len(found.skills)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENTCLI_HOME"] = str(Path(tmp) / "agentcli")
        empty = timed(runs, Path(tmp) / "nothing", Path(tmp) / "nobody", 0)
        home, project = populate(Path(tmp))
        full = timed(runs, project, home, 200)
    print(f"find_skills, none anywhere: {empty[0]:.3f} ms wall, {empty[1]:.3f} ms CPU (median of {runs})")
    print(f"find_skills, 200 skills in 5 locations: {full[0]:.2f} ms wall, {full[1]:.2f} ms CPU (median of {runs})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
