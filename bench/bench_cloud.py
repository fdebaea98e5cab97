"""Process start → first request byte for the cloud-platform paths (through the SDKs' clients) next to the direct
API-key path, against the fake server posing as each platform; and whole-process wall time of a one-reply run.

    .venv/bin/python -m bench.bench_cloud --runs 5
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from bench.bench_headless import PY, SCENARIOS, TARGETS, Target, clean_env, fake_server, measure

CLOUD: dict[str, Target] = {
    "anthropic (direct)": TARGETS["anthropic"],
    "bedrock": Target(("--model", "bedrock/anthropic.claude-sonnet-4-5"),
                      "/model/anthropic.claude-sonnet-4-5/invoke-with-response-stream",
                      lambda url: {"BEDROCK_BASE_URL": url, "AWS_REGION": "us-east-1",
                                   "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKEFAKE", "AWS_SECRET_ACCESS_KEY": "x" * 40}),
    "vertex (claude)": Target(("--model", "vertex/claude-sonnet-4-5"),
                              "/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5"
                              ":streamRawPredict",
                              lambda url: {"VERTEX_BASE_URL": url, "ANTHROPIC_VERTEX_PROJECT_ID": "p",
                                           "CLOUD_ML_REGION": "us-east5", "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.x"}),
    "openai (direct)": TARGETS["openai"],
    "azure": Target(("--model", "azure/dep"), "/openai/deployments/dep/chat/completions",
                    lambda url: {"AZURE_OPENAI_ENDPOINT": url, "AZURE_OPENAI_API_KEY": "k" * 20}),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    runs = ap.parse_args().runs
    print(f"runs {runs}; load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        proj = tmp / "proj"
        proj.mkdir()
        for name, target in CLOUD.items():
            with fake_server(SCENARIOS["one-reply"], tmp, target) as url:
                env = {**clean_env(tmp / "home"), **target.env(url)}
                cmd = [PY, "-m", "agentcli", "-p", "go", *target.args, "--no-session-persistence"]
                fig = measure(runs, cmd, proj, env, url=url)
            first = f"{fig.first_byte * 1000:.0f} ms" if fig.first_byte is not None else "?"
            print(f"{name:>20}: first request byte {first}; one-reply run {fig.wall * 1000:.0f} ms wall, "
                  f"{fig.cpu * 1000:.0f} ms CPU")


if __name__ == "__main__":
    main()
