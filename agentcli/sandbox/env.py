"""The environment a child process gets: ours minus provider keys and configured secrets.

Codex's `shell_environment_policy` idea, smaller: a variable is removed when its name matches one of the
exclude patterns (defaults below, plus the setting `shell_env_exclude`) unless `shell_env_keep` names it, and
whatever its name, when its value is one of the secrets agentcli knows (API keys from the environment or
config). The model can run `printenv`; nothing it shows may be a key.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.settings.sections import Settings

# Case-insensitive globs over variable names.
DEFAULT_EXCLUDE = (
    "*_API_KEY",
    "*_APIKEY",
    "*_AUTH_TOKEN",
    "*_ACCESS_TOKEN",
    "*_SECRET",
    "*_SECRET_*",
    "*_SECRET_KEY",
    "*_PASSWORD",
    "*_CREDENTIALS",
    "*_TOKEN",
    "*_PASSWD",
    "*_PRIVATE_KEY",
    "AWS_SESSION_TOKEN",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "HF_TOKEN",
    "NPM_TOKEN",
)


def scrub(
    environ: Mapping[str, str],
    *,
    secrets: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    keep: tuple[str, ...] = (),
) -> dict[str, str]:
    """A copy of `environ` without secret-looking names and without any variable holding a known secret."""
    excluded = any_of(tuple(p.upper() for p in (*DEFAULT_EXCLUDE, *exclude)))
    kept = {k.upper() for k in keep}
    values = {s for s in secrets if s}
    out: dict[str, str] = {}
    for name, value in environ.items():
        upper = name.upper()
        if value in values or any(s in value for s in values if len(s) >= 8):
            continue
        if upper not in kept and excluded.match(upper):
            continue
        out[name] = value
    return out


class Globs:
    """Matches a name when `fnmatch.fnmatchcase` would match it with one of the globs: names without a wildcard
    by set membership, `*SUFFIX` globs by one `str.endswith`, and only the others (`*_SECRET_*`, a `?` or a
    `[...]`) by one regex made of their `fnmatch.translate`: every start checks the environment against two such
    lists, and compiling all of them as one regex cost ~0.7 ms a run."""

    __slots__ = ("exact", "rx", "suffixes")

    def __init__(self, globs: tuple[str, ...]) -> None:
        self.exact = frozenset(g for g in globs if not _WILD.search(g))
        self.suffixes = tuple(g[1:] for g in globs if g.startswith("*") and not _WILD.search(g[1:]))
        rest = [g for g in globs if g not in self.exact and not (g.startswith("*") and g[1:] in self.suffixes)]
        self.rx = re.compile("|".join(fnmatch.translate(g) for g in rest)) if rest else None

    def match(self, name: str) -> bool:
        return (name in self.exact or name.endswith(self.suffixes)
                or (self.rx is not None and self.rx.match(name) is not None))


_WILD = re.compile(r"[*?\[]")


@functools.lru_cache(maxsize=8)
def any_of(globs: tuple[str, ...]) -> Globs:
    """One matcher for all of `globs` (see `Globs`), made once per list."""
    return Globs(globs)


def child_env(environ: Mapping[str, str], settings: Settings) -> dict[str, str]:
    """`scrub` with the settings' secrets and patterns."""
    return scrub(environ, secrets=settings.secrets, exclude=settings.sandbox.env_exclude,
                 keep=settings.sandbox.env_keep)
