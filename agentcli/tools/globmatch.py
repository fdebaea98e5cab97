"""Glob patterns as compiled regular expressions, by wcmatch: `*`, `?`, `[…]` (with POSIX classes such as
`[[:digit:]]`), `**` across directories and `{a,b}` alternatives.

Paths are matched relative to a base directory with `/` separators. `*` does not cross `/`; `**` as a whole
segment matches any number of directories, including none. Dotfiles are not special. Brace expansion is capped
(wcmatch's limit), so a hostile `{a,b}{a,b}…` cannot exhaust memory. wcmatch is imported on first use.

Why the regexes and not wcmatch's matcher objects: the matcher normalizes each path on every call and costs
about ten times as much per path (bench/bench_globs.py).
"""

from __future__ import annotations

import re
from functools import lru_cache


class BadGlob(ValueError):
    """The pattern cannot be used (invalid, or too many brace alternatives); the message says why."""


def _flags() -> int:
    from wcmatch import glob

    return glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX


def has_magic(s: str) -> bool:
    from wcmatch import glob

    return bool(glob.is_magic(s, flags=_flags()))


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that fully matches the relative paths the glob `pattern` selects. Raises BadGlob."""
    from wcmatch import glob

    try:
        include, _ = glob.translate(pattern, flags=_flags())
        # wcmatch ends each alternative with `$`, which also matches before a final newline: use `\Z`.
        return re.compile("|".join(f"(?:{p.removesuffix('$')})\\Z" for p in include))
    except (re.error, ValueError) as e:
        raise BadGlob(f"invalid glob pattern {pattern!r}: {e}") from None
    except Exception as e:  # wcmatch's PatternLimitException derives from Exception only
        raise BadGlob(f"glob pattern {pattern!r} cannot be used: {e}") from None
