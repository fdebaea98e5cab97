"""The environment scrub matches each variable name against all its exclude globs with one regex
(agentcli/sandbox/env.py `any_of`): it must decide exactly as `fnmatch.fnmatchcase` with each glob would."""

from __future__ import annotations

import fnmatch
import random

from agentcli.sandbox.env import DEFAULT_EXCLUDE, any_of, scrub

GLOBS = (*(g.upper() for g in DEFAULT_EXCLUDE), "FOO*[!A]?", "X[AB]*", "LIT.ERAL", "Q?")


def test_one_regex_decides_as_fnmatch_for_every_name() -> None:
    rng = random.Random(7)
    names = ["OPENAI_API_KEY", "_API_KEY", "API_KEY", "MY_SECRET_X", "MY_SECRETS", "GH_TOKEN", "GH_TOKENX",
             "A\nB_API_KEY", "LIT.ERAL", "LITXERAL", "Q", "QQ", "QQQ", "FOOZZB", "FOOZA", "XA", "XC", ""]
    names += ["".join(rng.choice("ABX_.?*[\n") for _ in range(rng.randint(0, 10)))
              + rng.choice(("", "_API_KEY", "_SECRET", "_SECRET_A", "_PASSWORD")) for _ in range(5000)]
    rx = any_of(GLOBS)
    wrong = [n for n in names if rx.match(n) != any(fnmatch.fnmatchcase(n, g) for g in GLOBS)]
    assert wrong == []


def test_scrub_drops_excluded_names_keeps_kept_ones_and_drops_secret_values() -> None:
    env = {"OPENAI_API_KEY": "k", "my_secret": "v", "HOME": "/h", "GH_TOKEN": "t", "PLAIN": "sk-known-secret-1"}
    out = scrub(env, secrets=("sk-known-secret-1",), exclude=("home",), keep=("gh_token",))
    assert out == {"GH_TOKEN": "t"}
