"""git on the read-only allowlist.

A "read-only" git command is read-only only while git cannot be made to run a program: the repository's own
configuration can name programs that `git status`, `diff`, `log` or `show` run on their own (`core.fsmonitor`,
`diff.external`, `diff.<driver>.textconv`, `filter.<driver>.clean`, `core.pager`, `gpg.program` with
`log.showSignature`, `core.sshCommand` for a lazy fetch, `include.path` pulling in any file…), and so can a hook
(`post-index-change` runs when `git status` refreshes the index). So `git_reads` accepts the command line, and
`repo_problem` finds the repository git would use from the command's directory — `.git` directories, `.git`
files, bare repositories shipped inside the project — and accepts its configuration only when every key is on
a list of keys that name no program. The user's own ~/.gitconfig is trusted: nothing inside the project can
change it without approval.
"""

from __future__ import annotations

import os
import re

from agentcli.permissions.reads import Reads
from agentcli.permissions.shell import Word
from agentcli.settings.projectfiles import Unreadable, read_text_regular

# A repository's git files are read without blocking (one can be a FIFO) and only so far: a config bigger than this
# is a problem said, not a read without end.
_MAX_GIT_FILE = 16 * 1024 * 1024

_GIT_READ = frozenset(
    {
        "status", "diff", "log", "show", "blame", "shortlog", "describe", "rev-parse", "ls-files", "ls-tree",
        "cat-file", "grep", "merge-base", "name-rev", "count-objects", "whatchanged", "rev-list",
        "for-each-ref", "show-ref", "check-ignore", "diff-tree", "diff-files", "diff-index", "version",
    }
)
_GIT_BRANCH_FLAGS = frozenset(
    {"-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--show-current", "--no-color", "-l", "--list"}
)
_GLOBAL_FLAGS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects", "--noglob-pathspecs",
     "--icase-pathspecs"}
)
# Options of read commands that write a file or run a program (the rest of the words are checked as paths).
_BAD_OPTION = re.compile(
    r"--output|--ext-diff|-O|--open-files-in-pager|--exec|--upload-pack|--receive-pack|--git-dir|--work-tree"
    r"|--show-signature|--config-env"
)
_TREE_OPTS = ("--no-index", "--untracked")


def git_reads(args: list[Word]) -> Reads | None:
    dirs: list[Word] = []
    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        t = args[i].text
        if t == "-C" and i + 1 < len(args):
            dirs.append(args[i + 1])
            i += 2
        elif t in _GLOBAL_FLAGS:
            i += 1
        else:
            return None  # -c, --git-dir, --exec-path, --config-env … can make git run anything
    if i >= len(args) or any(a.dynamic for a in args[i:]) or any(d.dynamic for d in dirs):
        return None
    sub, rest = args[i].text, args[i + 1 :]
    texts = [a.text for a in rest]
    if any(_BAD_OPTION.match(t) for t in texts):
        return None
    if not (sub in _GIT_READ or _git_listing(sub, texts)):
        return None
    paths = list(dirs) + _path_words(rest)
    reads = Reads(paths, git_dirs=dirs)
    if sub == "grep" and any(t in _TREE_OPTS for t in texts):
        # searches the working directory's files, tracked or not, not the repository
        named = [w for w in _path_words(rest)[1:] if "/" in w.text or os.path.exists(w.text)]
        reads.trees = named or [Word(".")]
    return reads


def _path_words(rest: list[Word]) -> list[Word]:
    """Every argument may name a file (`--contents FILE`, `HEAD:.env`, `-- path`): all are checked as paths,
    and an option's `=value` when it looks like one."""
    out: list[Word] = []
    for w in rest:
        t = w.text
        if t.startswith("-"):
            _, eq, value = t.partition("=")
            if eq and value.startswith(("/", "~", "..")):
                out.append(Word(value, tilde=value.startswith("~")))
            continue
        out.append(w)
        rev, colon, path = t.partition(":")
        if colon and path and not rev.startswith("/"):
            out.append(Word(path.removeprefix("./")))  # `git show HEAD:.env` / `:.env` print the file as stored
    return out


def _git_listing(sub: str, rest: list[str]) -> bool:
    """Subcommands that only list when given no action (`git branch`, `git tag -l`, `git stash list`)."""
    if sub == "branch":
        listing = any(r in ("-l", "--list") for r in rest)
        return all(r in _GIT_BRANCH_FLAGS or (listing and not r.startswith("-")) for r in rest)
    if sub == "tag":
        return not rest or rest[0] in ("-l", "--list")
    if sub == "remote":
        # `remote show NAME` asks the remote over the network (its transport, ssh, credential helpers) unless -n
        shown = bool(rest) and rest[0] == "show" and (len(rest) == 1 or "-n" in rest[1:])
        return not rest or rest == ["-v"] or shown or (bool(rest) and rest[0] == "get-url")
    if sub in ("stash", "worktree"):
        return bool(rest) and rest[0] in ("list", "show")
    if sub == "submodule":
        return bool(rest) and rest[0] == "status"
    if sub == "reflog":
        return not rest or rest[0] == "show"
    if sub == "config":
        return (
            bool(rest) and rest[0] in ("--get", "--get-all", "--list", "-l", "--get-regexp")
            and not any(r.startswith(("-f", "--file", "--blob", "--includes")) for r in rest)
        )
    return False


# Keys (lower case; `*` a subsection) that name no program and read no file outside the repository.
_SAFE_KEYS = frozenset(
    str.split(
    """
    core.repositoryformatversion core.filemode core.bare core.logallrefupdates core.ignorecase
    core.precomposeunicode core.symlinks core.autocrlf core.eol core.safecrlf core.quotepath core.abbrev
    core.compression core.loosecompression core.bigfilethreshold core.checkstat core.trustctime core.splitindex
    core.untrackedcache core.preloadindex core.commentchar core.commentstring core.whitespace
    core.packedgitlimit core.packedgitwindowsize core.deltabasecachelimit core.warnambiguousrefs
    core.sparsecheckout core.sparsecheckoutcone core.multipackindex core.commitgraph core.fsyncmethod
    core.fsync core.longpaths core.protectntfs core.protecthfs core.notesref
    remote.*.url remote.*.pushurl remote.*.fetch remote.*.push remote.*.tagopt remote.*.prune
    remote.*.prunetags remote.*.mirror remote.*.skipdefaultupdate remote.*.skipfetchall
    branch.*.remote branch.*.merge branch.*.rebase branch.*.pushremote branch.*.description
    user.name user.email init.defaultbranch
    diff.renames diff.renamelimit diff.algorithm diff.mnemonicprefix diff.noprefix diff.relative
    diff.statgraphwidth diff.context diff.interhunkcontext diff.colormoved diff.colormovedws
    diff.indentheuristic diff.suppressblankempty diff.submodule diff.wserrorhighlight diff.dirstat
    diff.ignoresubmodules diff.srcprefix diff.dstprefix
    diff.*.xfuncname diff.*.funcname diff.*.wordregex diff.*.binary
    merge.conflictstyle merge.ff merge.log merge.renames merge.*.name
    log.date log.decorate log.follow log.abbrevcommit log.showroot log.mailmap log.graphcolors
    status.showuntrackedfiles status.short status.branch status.relativepaths status.submodulesummary
    pull.rebase pull.ff push.default push.autosetupremote fetch.prune
    submodule.recurse submodule.*.url submodule.*.path submodule.*.active submodule.*.branch
    submodule.*.ignore submodule.*.shallow submodule.*.fetchrecursesubmodules
    gc.auto rerere.enabled index.version feature.manyfiles lfs.repositoryformatversion lfs.*.access
    lfs.*.locksverify
    """
    )
)
_SAFE_SECTIONS = frozenset({"color", "advice", "extensions", "i18n", "column", "pack", "checkout", "worktree"})
_BOOL_ONLY = {"core.fsmonitor": {"true", "false", "yes", "no", "on", "off", "0", "1", ""}}
_HOOKS = ("post-index-change", "reference-transaction")
_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(?:[#;].*)?')
_ENTRY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?")


def repo_problem(start: str) -> str | None:
    """Why git, started in `start`, might run a program the repository configures — or None when the
    repository's configuration (and its hooks) name none, or there is no repository."""
    found = _find_gitdir(start)
    if found is None:
        return None
    if isinstance(found, str) and found.startswith("!"):
        return found[1:]
    gitdir = found
    common = gitdir
    try:
        pointer = read_text_regular(os.path.join(gitdir, "commondir"), _MAX_GIT_FILE)
    except Unreadable:
        return f"cannot read {gitdir}/commondir"
    if pointer is not None:
        common = os.path.normpath(os.path.join(gitdir, pointer.strip()))
    hook_dirs = [os.path.join(d, "hooks") for d in dict.fromkeys((gitdir, common))]
    for d in dict.fromkeys((gitdir, common)):
        for name in ("config", "config.worktree"):
            problem = _config_problem(os.path.join(d, name), hook_dirs)
            if problem is not None:
                return problem
    worktree = os.path.dirname(gitdir) if os.path.basename(gitdir) == ".git" else gitdir
    for d in hook_dirs:
        for hook in _HOOKS:
            if os.path.exists(os.path.join(worktree, d, hook)):
                return f"the repository has a {hook} hook"
    return None


def _find_gitdir(start: str) -> str | None:
    """The git directory git would use from `start` (as git discovers it), None outside any repository,
    or "!reason" when it cannot be known."""
    cur = os.path.realpath(start)
    while True:
        dotgit = os.path.join(cur, ".git")
        if os.path.isdir(dotgit):
            return dotgit
        if os.path.isfile(dotgit):
            try:
                first = (read_text_regular(dotgit, _MAX_GIT_FILE) or "").partition("\n")[0].strip()
            except Unreadable:
                return f"!cannot read {dotgit}"
            if not first.startswith("gitdir:"):
                return f"!{dotgit} is not a gitdir file"
            return os.path.normpath(os.path.join(cur, first[len("gitdir:") :].strip()))
        if os.path.isfile(os.path.join(cur, "HEAD")) and os.path.isdir(os.path.join(cur, "objects")):
            return cur  # a bare repository
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def _config_problem(path: str, hook_dirs: list[str]) -> str | None:
    """Why the config file at `path` may make git run a program, or None. `core.hooksPath` (husky sets it) is
    accepted, and its directory added to `hook_dirs` for the hook check."""
    try:
        text = read_text_regular(path, _MAX_GIT_FILE)
    except Unreadable:
        return f"cannot read {path}"
    if text is None:
        return None
    entries = config_entries(text)
    if isinstance(entries, str):
        return f"{path}: {entries}"
    for key, value in entries:
        if key == "core.hookspath":
            hook_dirs.append(os.path.expanduser(value))
            continue
        if not _safe(key, value.lower()):
            return f"{path} sets {key}, which can make git run a program"
    return None


def config_entries(text: str) -> list[tuple[str, str]] | str:
    """A git config file's entries as (`section.key`, value), a subsectioned section as `section.*`; or what
    makes it one git may read differently than this (then nothing in it is trusted)."""
    out: list[tuple[str, str]] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            m = _SECTION.fullmatch(line)
            if m is None:
                return f"a section git may read differently: {line[:60]}"
            name, sub = m.group(1).lower(), m.group(2)
            head, dot, _ = name.partition(".")
            section = f"{head}.*" if (sub is not None or dot) else head
            continue
        m = _ENTRY.fullmatch(line)
        if m is None or line.endswith("\\"):
            return f"a line git may read differently: {line[:60]}"
        out.append((f"{section}.{m.group(1).lower()}", (m.group(2) or "").strip().strip('"')))
    return out


def _safe(key: str, value: str) -> bool:
    if key in _SAFE_KEYS or key.split(".", 1)[0] in _SAFE_SECTIONS:
        return True
    allowed = _BOOL_ONLY.get(key)
    return allowed is not None and value in allowed
