"""From parsed simple commands to the programs that actually run (`Part`s), looking through wrappers.

`sudo`, `env X=1`, `nice`, `timeout`, `xargs`, `find -exec`, `bash -c '…'` and `eval` run another command:
that inner command is what a rule must allow. Each `Part` keeps both views: `words` (the inner command) and
`full` (as written, wrappers included), plus the files it writes through redirections or `tee`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from agentcli.permissions import wrapopts
from agentcli.permissions.findcheck import start_points
from agentcli.permissions.shell import ShellParseError, SimpleCommand, Word, parse

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash"})
PRIVILEGED = frozenset({"sudo", "doas", "su", "pkexec", "run0"})
# Environment assignments are untrusted unless known to be harmless. Known-dangerous names (those that make
# a program run code, load a library or read a configuration) make the command opaque: only a bare `Bash`
# rule or bypass mode runs it. Any other name makes it "not read-only", and a rule must name the assignment.
_DANGEROUS_ENV = frozenset(
    {
        "PATH", "IFS", "BASH_ENV", "ENV", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS",
        "CDPATH", "GLOBIGNORE", "BASH_XTRACEFD", "PAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "MANPAGER",
        "HOME", "SHELL", "TMPDIR", "BROWSER", "GNUPGHOME", "MAKEFLAGS", "MAKEFILES", "MFLAGS", "GNUMAKEFLAGS",
        "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS", "RUSTC_WRAPPER",
        "RUSTC", "RUSTFLAGS", "RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "TAR_OPTIONS", "ZDOTDIR", "INPUTRC",
        "TERMINFO", "SSH_ASKPASS", "SUDO_ASKPASS", "CC", "CXX", "LDFLAGS", "CFLAGS", "CPPFLAGS",
    }
)
_DANGEROUS_PREFIXES = (
    "LD_", "DYLD_", "GIT_", "XDG_", "PYTHON", "NODE_", "NPM_CONFIG_", "npm_config_", "YARN_", "PIP_", "CARGO_",
    "PERL", "RUBY", "GEM_", "BUNDLE_", "LUA_", "TCL", "BASH_FUNC_", "DOCKER_", "KUBECONFIG", "AWS_", "SSH_",
)
_SAFE_ENV = frozenset(
    {
        "LANG", "LANGUAGE", "TZ", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS", "LINES",
        "TERM", "COLORTERM", "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "TIME_STYLE", "POSIXLY_CORRECT",
        "QUOTING_STYLE", "BLOCK_SIZE", "DU_BLOCK_SIZE", "DF_BLOCK_SIZE", "GIT_TERMINAL_PROMPT",
        "GIT_OPTIONAL_LOCKS", "GIT_LITERAL_PATHSPECS", "GIT_NO_REPLACE_OBJECTS",
    }
)
_PAGERS = frozenset({"PAGER", "GIT_PAGER", "MANPAGER"})
_HARMLESS_VALUES = frozenset({"", "cat", "less", "more"})
_DEV_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_PLAIN = re.compile(r"[\w@%+=:,./~*?\[\]{}^!#-]+")

# Wrapper → options that take a separate argument. The wrapped command starts at the first non-option word.
_WRAPPER_ARG_OPTS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-p", "-C", "-h", "-r", "-t", "-U", "-D", "-T", "-c"}),
    "doas": frozenset({"-u", "-C"}),
    "nice": frozenset({"-n"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "ionice": frozenset({"-c", "-n", "-t"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-I", "-n", "-L", "-l", "-P", "-s", "-d", "-E", "-e", "-a", "-i"}),
    "chronic": frozenset(),
    "caffeinate": frozenset({"-t", "-w"}),
    "setsid": frozenset(),
    "unbuffer": frozenset(),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-P", "-a", "-b", "-I", "-S", "-X"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-L", "-x"}),
}
_ENV_ARG_OPTS = frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"})
# Programs whose first positional argument comes before the command they run: `flock LOCK cmd`, `chroot DIR cmd`.
_ONE_ARG_WRAPPERS: dict[str, frozenset[str]] = {
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "chroot": frozenset({"--userspec", "--groups"}),
}
# Programs that join their arguments into a shell command line.
_SHELL_JOINERS: dict[str, frozenset[str]] = {"watch": frozenset({"-n", "--interval", "-q", "--equexit"})}


@dataclass(slots=True)
class Part:
    """One program the command line runs. `opaque` says why it cannot be judged (then only a bare `Bash`
    rule or bypass mode lets it run); `fed` marks arguments that arrive from stdin (xargs)."""

    words: list[Word]
    full: list[Word]
    privileged: bool = False
    wrapped: bool = False
    fed: bool = False
    opaque: str | None = None
    writes: list[Word] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)
    assigns: list[str] = field(default_factory=list)
    tree_reads: list[Word] = field(default_factory=list)
    tree_follow: bool = False

    @property
    def text(self) -> str:
        """The program and its arguments, after any assignment a rule must name (`FOO=1 npm test`)."""
        return " ".join([*self.assigns, join_words(self.words)]) if self.assigns else join_words(self.words)

    @property
    def full_text(self) -> str:
        return join_words(self.full)

    @property
    def name(self) -> str:
        return self.words[0].text if self.words else ""


def join_words(words: list[Word]) -> str:
    """A normalized command text: single spaces, quotes only where a word needs them."""
    return " ".join(w.text if _PLAIN.fullmatch(w.text) else shlex.quote(w.text) for w in words)


def analyse(text: str, depth: int = 0) -> list[Part]:
    """Every program `text` runs, wrappers looked through. Raises ShellParseError."""
    if depth > 6:
        raise ShellParseError("shells nested too deep")
    parts: list[Part] = []
    for cmd in parse(text):
        parts.extend(_from_simple(cmd, depth))
    return parts


def _from_simple(cmd: SimpleCommand, depth: int) -> list[Part]:
    writes = [r.target for r in cmd.redirects if r.writes and r.target and r.target.text not in _DEV_SINKS]
    reads = [r.target for r in cmd.redirects if r.op == "<" and r.target is not None]
    part = Part(list(cmd.words), list(cmd.words), writes=writes, reads=reads)
    bad = [name for name, value in cmd.assigns if _dangerous_assignment(name, value)]
    if bad:
        part.opaque = f"sets {', '.join(bad)}"
        return [part]
    if not cmd.words:
        return [part] if writes or reads else []
    part.assigns = [join_words([value]) for name, value in cmd.assigns if not _safe_assignment(name, value)]
    extra: list[Part] = []
    _unwrap(part, extra, depth)
    return [*extra, part] if part.words or part.writes or part.reads or part.opaque else extra


def _dangerous_assignment(name: str, value: Word) -> bool:
    if name in _PAGERS and not value.dynamic:
        return value.text.partition("=")[2] not in _HARMLESS_VALUES
    if name in _SAFE_ENV:
        return False
    return name in _DANGEROUS_ENV or name.startswith(_DANGEROUS_PREFIXES)


def _safe_assignment(name: str, value: Word) -> bool:
    """Known to change nothing a read-only command does beyond its output's look."""
    return name in _SAFE_ENV or name.startswith("LC_") or name in _PAGERS


def _unwrap(part: Part, extra: list[Part], depth: int) -> None:
    """Peel wrappers off `part.words` in place; commands run by `-exec`/`-c`/`eval` go to `extra`."""
    for _ in range(16):
        if not part.words:
            return
        head = part.words[0]
        if head.dynamic or head.glob:
            part.opaque = "the command name is computed at run time"
            return
        name = head.text
        if name in SHELLS:
            _shell(part, extra, depth)
            return
        if name == "eval":
            _eval(part, extra, depth)
            return
        if name in _SHELL_JOINERS:
            part.words = [part.words[0], *wrapopts.scan(part.words[1:], _SHELL_JOINERS[name], name).rest]
            _eval(part, extra, depth)
            return
        if name in _ONE_ARG_WRAPPERS:
            if not _one_arg(part, name):
                return
            continue
        if name == "find":
            extra.extend(_find_exec(part, depth))
            return
        if name == "env":
            if not _env(part):
                return
        elif name in _WRAPPER_ARG_OPTS or name in PRIVILEGED:
            if name in ("command", "builtin") and len(part.words) > 1 and part.words[1].text in ("-v", "-V"):
                return
            scanned = wrapopts.scan(part.words[1:], _WRAPPER_ARG_OPTS.get(name, frozenset()), name)
            if not _option_effects(part, name, scanned):
                return
            rest = scanned.rest
            if name == "timeout" and rest:
                rest = rest[1:]
            part.privileged |= name in PRIVILEGED
            part.fed |= name == "xargs"
            part.wrapped = True
            if not rest:
                if name in PRIVILEGED:
                    part.opaque = f"{name} without a command"
                part.words = [Word("echo")] if name == "xargs" else []
                return
            part.words = rest
        else:
            return


def _option_effects(part: Part, name: str, scanned: wrapopts.Scanned) -> bool:
    """Record what a wrapper's own options do (files written or read, environment set); False when the
    part is settled as opaque: a trace piped to a command, a process attached to, a value known only later."""
    for kind, option, value in scanned.found:
        if kind == "attach":
            part.opaque = f"{name} {option} attaches to a running process"
            return False
        if value is None or value.dynamic:
            part.opaque = f"{name} {option} takes a value known only at run time"
            return False
        if kind == "writes":
            if value.text.startswith(("|", "!")):
                part.opaque = f"{name} {option} pipes its output to a command"
                return False
            part.writes.append(value)
        elif kind == "reads":
            part.reads.append(value)
        else:
            var, eq, _ = value.text.partition("=")
            if not eq or _dangerous_assignment(var, value):
                part.opaque = f"{name} {option} sets {var}"
                return False
            if not _safe_assignment(var, value):
                part.assigns.append(join_words([value]))
    return True


def _one_arg(part: Part, name: str) -> bool:
    """`flock LOCK cmd` / `flock LOCK -c 'script'` / `chroot DIR cmd`: False when nothing is left to run."""
    args = wrapopts.scan(part.words[1:], _ONE_ARG_WRAPPERS[name], name).rest
    rest = args[1:]
    if name == "flock" and args and not args[0].text.isdigit():
        part.writes.append(args[0])  # flock creates its lock file
    part.privileged |= name == "chroot"
    part.wrapped = True
    if not rest:
        part.opaque = f"{name} without a command"
        return False
    part.words = [Word("sh"), Word("-c"), *rest[1:]] if rest[0].text in ("-c", "--command") else rest
    return True


def _env(part: Part) -> bool:
    """Strip `env` options and NAME=VALUE words; False when the part is settled (opaque or `env` alone)."""
    scanned = wrapopts.scan(part.words[1:], _ENV_ARG_OPTS, "env")
    for _, option, _ in scanned.found:  # -C/--chdir moves every relative path; -S splits a new command line
        part.opaque = f"env {option} rewrites the command"
        return False
    words = scanned.rest[1:] if scanned.rest and scanned.rest[0].text == "-" else scanned.rest
    i = 0
    while i < len(words):
        name, eq, _ = words[i].raw.partition("=")
        if eq and name.isidentifier():
            if _dangerous_assignment(name, words[i]):
                part.opaque = f"sets {name}"
                return False
            if not _safe_assignment(name, words[i]):
                part.assigns.append(join_words([words[i]]))
            i += 1
            continue
        break
    if i >= len(words):
        return False
    part.words = words[i:]
    part.wrapped = True
    return True


def _shell(part: Part, extra: list[Part], depth: int) -> None:
    words = part.words[1:]
    i = 0
    while i < len(words):
        t = words[i].text
        if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if t.startswith("-") and not t.startswith("--") and "c" in t[1:] and t[1:].isalpha():
            if i + 1 >= len(words):
                part.opaque = "shell -c without a script"
            elif words[i + 1].dynamic:
                part.opaque = "shell script computed at run time"
            else:
                _nested(words[i + 1].text, part, extra, depth)
            return
        if not t.startswith(("-", "+")):
            return
        i += 1


def _eval(part: Part, extra: list[Part], depth: int) -> None:
    if any(w.dynamic for w in part.words[1:]):
        part.opaque = "eval of text computed at run time"
        return
    _nested(" ".join(w.text for w in part.words[1:]), part, extra, depth)


def _nested(script: str, part: Part, extra: list[Part], depth: int) -> None:
    """The parts of a script run by `sh -c` / `eval` replace the wrapper part, which keeps only its redirects."""
    try:
        inner = analyse(script, depth + 1)
    except ShellParseError as e:
        part.opaque = f"inner script: {e}"
        return
    for p in inner:
        p.privileged |= part.privileged
        p.wrapped = True
        p.full = part.full
    extra.extend(inner)
    part.words = []


def _find_exec(part: Part, depth: int) -> list[Part]:
    """`find … -exec cmd {} ;` runs cmd: each exec'd command becomes its own part."""
    out: list[Part] = []
    words = part.words
    roots, follow, _ = start_points(words[1:])
    i = 0
    while i < len(words):
        if words[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            inner = Part(words[i + 1 : j], part.full, privileged=part.privileged, wrapped=True)
            made: list[Part] = []
            if not inner.words:
                inner.opaque = "find -exec without a command"
            else:
                _unwrap(inner, made, depth)
            for p in (*made, inner):
                # the command reads whatever find walks to: `find . -exec cat {} +` reads every file
                p.tree_reads, p.tree_follow = roots, follow
            out.extend((*made, inner))
            i = j
        i += 1
    return out
