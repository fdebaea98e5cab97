"""Known-safe options of the read-only programs, one line per program.

An option not listed makes the command "not known to be read-only", so it asks: the allowlist cannot be
dodged by an option we forgot to forbid (`sort --compress-program=sh`, `sort --comp=sh` through GNU's
abbreviations, `date --file=~/.ssh/id`, `wc --files0-from=-`). Notation, one token per option:

    -a          a short flag (may be clustered: `-la`)
    -n:         a short option with a value (`-n5` or `-n 5`)
    -f@         a short option whose value is a file the program reads (checked like any path)
    *           any option is a flag (ls: every option only changes how names are shown)
    --all       a long flag
    --lines:    a long option with a value (`--lines=5` or `--lines 5`)
    --color?    a long option with an optional value (`--color` or `--color=auto`, never a separate word)
    --file@     a long option naming a file it reads
    #           numeric options (`head -5`, `grep -3`)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

_SPECS: dict[str, str] = {
    "ls": "*",  # every option of ls only changes how names and metadata are shown
    "cat": "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank "
           "--show-tabs --show-nonprinting",
    "head": "# -q -v -z -n: -c: --quiet --silent --verbose --zero-terminated --lines: --bytes:",
    "tail": "# -f -F -q -v -z -r -n: -c: -s: --follow? --retry --quiet --silent --verbose --zero-terminated "
            "--lines: --bytes: --sleep-interval: --pid: --max-unchanged-stats:",
    "wc": "-c -m -l -L -w --bytes --chars --lines --max-line-length --words --total:",
    "file": "-b -i -L -h -z -Z -k -r -s -N -0 -n -E -l -e: -F: -P: --brief --mime --mime-type --mime-encoding "
            "--dereference --no-dereference --uncompress --uncompress-noreport --keep-going --raw --special-files "
            "--no-pad --print0 --no-buffer --extension --exclude: --separator: --parameter:",
    "stat": "-L -f -t -c: --dereference --file-system --terse --format: --printf: --cached:",
    "du": "# -a -b -c -h -H -k -L -l -m -P -s -S -x -0 -D -d: -B: -t: --all --apparent-size --bytes --total "
          "--human-readable --si --inodes --count-links --dereference --dereference-args --no-dereference "
          "--separate-dirs --summarize --one-file-system --null --max-depth: --block-size: --threshold: --time? "
          "--time-style: --exclude:",
    "df": "-a -h -H -i -k -l -P -T -x: -t: -B: --all --human-readable --si --inodes --local --portability "
          "--print-type --total --output? --block-size: --type: --exclude-type: --sync --no-sync",
    "tree": "-a -d -l -f -x -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -n -C -A -S -J -X -L: -P: -I: "
            "--prune --filelimit: --noreport --si --du --inodes --device --dirsfirst --filesfirst --charset: "
            "--sort: --matchdirs --ignore-case --gitignore --metafirst",
    "realpath": "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet "
                "--strip --no-symlinks --zero --relative-to@ --relative-base@",
    "readlink": "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing "
                "--no-newline --quiet --silent --verbose --zero",
    "nl": "-p -b: -d: -f: -h: -i: -l: -n: -s: -v: -w: --body-numbering: --section-delimiter: "
          "--footer-numbering: --header-numbering: --line-increment: --join-blank-lines: --number-format: "
          "--no-renumber --number-separator: --starting-line-number: --number-width:",
    "od": "-a -b -c -d -f -i -l -o -s -x -v -A: -j: -N: -S: -t: -w: --address-radix: --skip-bytes: "
          "--read-bytes: --strings? --format: --output-duplicates --width? --traditional --endian:",
    "hexdump": "-b -c -C -d -o -x -v -e: -n: -s: --canonical --no-squeezing --format: --length: --skip:",
    "cksum": "-z --tag --untagged --raw --base64 --zero --debug -a: -l: --algorithm: --length:",
    "diff": "# -q -s -c -u -e -n -y -l -p -t -T -N -a -b -w -B -i -E -Z -d -H -r -C: -U: -W: -F: -I: -x: -S: "
            "--brief --report-identical-files --context? --unified? --ed --normal --rcs --side-by-side "
            "--width: --expand-tabs --initial-tab --suppress-common-lines --left-column --show-c-function "
            "--show-function-line: --label: --ignore-space-change --ignore-all-space --ignore-blank-lines "
            "--ignore-matching-lines: --ignore-tab-expansion --ignore-trailing-space --minimal "
            "--speed-large-files --horizon-lines: --color? --palette: --tabsize: --suppress-blank-empty "
            "--no-dereference --strip-trailing-cr --ignore-case --ignore-file-name-case "
            "--no-ignore-file-name-case --recursive --new-file --unidirectional-new-file --text --exclude: "
            "--starting-file: --from-file@ --to-file@",
    "cmp": "-b -l -s -i: -n: --print-bytes --verbose --silent --quiet --ignore-initial: --bytes:",
    "comm": "-1 -2 -3 -z --check-order --nocheck-order --output-delimiter: --total --zero-terminated",
    "cut": "-n -s -z -b: -c: -d: -f: --bytes: --characters: --delimiter: --fields: --complement "
           "--only-delimited --output-delimiter: --zero-terminated",
    "column": "-t -x -n -e -d -J -L -c: -s: -o: -N: -R: -T: -E: -H: -O: -r: -l: -W: --table --fillrows "
              "--separator: --output-separator: --table-columns: --output-width: --json --keep-empty-lines",
    "fold": "-b -s -w: --bytes --spaces --width:",
    "fmt": "# -c -t -s -u -w: -g: -p: --crown-margin --tagged-paragraph --split-only --uniform-spacing "
           "--width: --goal: --prefix:",
    "rev": "",
    "tac": "-b -r -s: --before --regex --separator:",
    "strings": "# -a -d -f -o -w -n: -t: -e: -s: -U: --all --data --print-file-name --bytes: --radix: "
               "--encoding: --include-all-whitespace --output-separator: --unicode:",
    "cd": "-L -P -e -@",
    "pushd": "-n",
    "popd": "-n",
    "sort": "-b -d -f -g -h -i -M -n -R -r -V -c -C -m -s -u -z -k: -t: -S: --ignore-leading-blanks "
            "--dictionary-order --ignore-case --general-numeric-sort --human-numeric-sort --ignore-nonprinting "
            "--month-sort --numeric-sort --random-sort --reverse --version-sort --sort: --check? --merge "
            "--stable --unique --zero-terminated --key: --field-separator: --buffer-size: --parallel: --debug",
    "uniq": "-c -d -D -i -u -z -f: -s: -w: --count --repeated --all-repeated? --group? --ignore-case --unique "
            "--zero-terminated --skip-fields: --skip-chars: --check-chars:",
    "grep": "# -E -F -G -P -i -y -v -w -x -c -L -l -o -q -s -b -H -h -n -T -Z -z -a -I -r -R -U -e: -f@ -m: "
            "-A: -B: -C: -d: -D: --regexp: --file@ --max-count: --after-context: --before-context: --context: "
            "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case "
            "--invert-match --word-regexp --line-regexp --count --color? --colour? --files-without-match "
            "--files-with-matches --only-matching --quiet --silent --no-messages --byte-offset --with-filename "
            "--no-filename --label: --line-number --initial-tab --null --null-data --text --binary-files: "
            "--devices: --directories: --recursive --dereference-recursive --include: --exclude: "
            "--exclude-dir: --exclude-from@ --line-buffered --binary",
    "rg": "# -i -s -S -w -x -v -F -P -U -n -N -l -c -o -q -H -I -p -a -u -L -z -. -0 -b -e: -f@ -g: -t: -T: "
          "-m: -A: -B: -C: -M: -d: -j: -E: -r: --regexp: --file@ --glob: --iglob: --type: --type-not: "
          "--max-count: --context: --after-context: --before-context: --max-columns: --max-depth: "
          "--max-filesize: --threads: --encoding: --color: --colors: --sort: --sortr: --type-add: --replace: "
          "--path-separator: --context-separator: --field-context-separator: --field-match-separator: "
          "--dfa-size-limit: --regex-size-limit: --engine: --ignore-file@ --hidden --no-ignore "
          "--no-ignore-vcs --no-ignore-dot --no-ignore-parent --no-ignore-global --no-ignore-exclude "
          "--no-ignore-files --follow --files --files-with-matches --files-without-match --count "
          "--count-matches --only-matching --quiet --no-filename --with-filename --line-number "
          "--no-line-number --column --no-column --heading --no-heading --vimgrep --json --trim --stats "
          "--multiline --multiline-dotall --pcre2 --auto-hybrid-regex --case-sensitive --ignore-case "
          "--smart-case --word-regexp --line-regexp --invert-match --fixed-strings --text --binary --crlf "
          "--null --null-data --no-messages --one-file-system --byte-offset --passthru --pretty "
          "--unrestricted --search-zip --no-config --no-unicode --type-list --max-columns-preview "
          "--block-buffered --line-buffered --include-zero --no-require-git --glob-case-insensitive "
          "--sort-files --mmap --no-mmap",
    "fd": "-H -I -u -s -i -g -F -a -l -L -p -0 -1 -q -d: -t: -e: -E: -c: -j: -S: -o: --hidden --no-ignore "
          "--no-ignore-vcs --unrestricted --case-sensitive --ignore-case --glob --regex --fixed-strings "
          "--absolute-path --list-details --follow --full-path --print0 --max-depth: --min-depth: "
          "--exact-depth: --type: --extension: --exclude: --color: --threads: --size: --changed-within: "
          "--changed-before: --owner: --max-results: --quiet --show-errors --one-file-system --prune "
          "--strip-cwd-prefix? --path-separator: --format: --ignore-file@ --search-path@",
    "jq": "-r -j -a -c -n -s -e -S -C -M -R --tab --indent: --arg:: --argjson:: --args --jsonargs --raw-input "
          "--raw-output --join-output --ascii-output --compact-output --null-input --slurp --exit-status "
          "--sort-keys --color-output --monochrome-output --seq --stream --stream-errors --raw-output0 "
          "--unbuffered",
    "date": "-u -R -d: -r@ -I? --date: --reference@ --utc --universal --rfc-email --rfc-3339: --iso-8601? "
            "--debug",
    "hostname": "-s -f -i -I -d -a -A -y -n --short --fqdn --long --ip-address --all-ip-addresses --domain "
                "--alias --yp --nis --node",
}
for _name in ("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"):
    _SPECS[_name] = "-b -t -z --binary --text --tag --zero --untagged"
_SPECS["egrep"] = _SPECS["fgrep"] = _SPECS["grep"]


@dataclass(slots=True)
class OptSpec:
    """A program's known-safe options: name → arity (0 flag, 1 value, 2 two values, -1 optional `=value`)
    and which of them name a file the program reads."""

    digits: bool = False
    any_flag: bool = False
    short: dict[str, int] = field(default_factory=dict)
    long: dict[str, int] = field(default_factory=dict)
    path_opts: frozenset[str] = frozenset()


@dataclass(slots=True)
class Scanned:
    """What a command line's words mean under an OptSpec: the options seen (by their listed name), the
    positional words and the words that name files read through options."""

    options: list[str] = field(default_factory=list)
    positionals: list[int] = field(default_factory=list)
    option_paths: list[tuple[int, int]] = field(default_factory=list)  # (word index, where the value starts)
    values: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


@functools.cache
def spec(program: str) -> OptSpec | None:
    text = _SPECS.get(program)
    if text is None:
        return None
    out = OptSpec()
    paths: set[str] = set()
    for token in text.split():
        if token in ("#", "*"):
            out.digits = True
            out.any_flag |= token == "*"
            continue
        name = token.rstrip(":@?")
        suffix = token[len(name) :]
        arity = {"": 0, ":": 1, "::": 2, "@": 1, "?": -1}[suffix]
        if suffix == "@":
            paths.add(name)
        (out.long if name.startswith("--") else out.short)[name] = arity
    out.path_opts = frozenset(paths)
    return out


def scan(texts: list[str], s: OptSpec) -> Scanned | None:
    """Split `texts` (a command's arguments) into options and positionals; None at an option not listed."""
    out = Scanned()
    i = 0
    while i < len(texts):
        t = texts[i]
        if t == "--":
            out.positionals.extend(range(i + 1, len(texts)))
            return out
        if not t.startswith("-") or t == "-":
            out.positionals.append(i)
            i += 1
            continue
        if s.any_flag:
            out.options.append(t)
            i += 1
            continue
        step = _long(texts, i, s, out) if t.startswith("--") else _short(texts, i, s, out)
        if step is None:
            return None
        i += step
    return out


def _take(out: Scanned, name: str, s: OptSpec, index: int, offset: int = 0) -> None:
    out.values.setdefault(name, []).append((index, offset))
    if name in s.path_opts:
        out.option_paths.append((index, offset))


def _long(texts: list[str], i: int, s: OptSpec, out: Scanned) -> int | None:
    name, eq, _ = texts[i].partition("=")
    arity = s.long.get(name)
    if arity is None or (eq and arity == 0):
        return None
    out.options.append(name)
    if eq or arity == -1:
        if eq:
            _take(out, name, s, i, len(name) + 1)
        return 1
    if i + arity >= len(texts):
        return None
    for k in range(1, arity + 1):
        _take(out, name, s, i + k)
    return 1 + arity


def _short(texts: list[str], i: int, s: OptSpec, out: Scanned) -> int | None:
    t = texts[i]
    if s.digits and t[1:].isdigit():
        return 1
    if t in s.short:  # single-dash words listed whole (`-.` of rg)
        return _short_value(texts, i, t, "", s, out)
    for j in range(1, len(t)):
        name = "-" + t[j]
        arity = s.short.get(name)
        if arity is None or arity < 0:
            return None
        if arity:
            return _short_value(texts, i, name, t[j + 1 :], s, out)
        out.options.append(name)
    return 1


def _short_value(texts: list[str], i: int, name: str, attached: str, s: OptSpec, out: Scanned) -> int | None:
    arity = s.short[name]
    out.options.append(name)
    if arity == 0:
        return 1
    if attached:
        _take(out, name, s, i, len(texts[i]) - len(attached))
        return 1
    if i + 1 >= len(texts):
        return None
    _take(out, name, s, i + 1)
    return 2
