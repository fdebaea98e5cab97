"""A small shell parser: enough of POSIX sh / bash to split a command line into the simple commands it runs.

`parse(text)` returns every simple command the line would execute — those joined by `;`, `&&`, `||`, `|`,
`&` and newlines, inside subshells, groups, `$(…)`, backticks, `<(…)` and the conditions and bodies of
`if`/`while`/`for` — each with its words (quotes removed) and redirections. Anything it cannot follow with
certainty (`case`, function definitions, `${x:-$(…)}`, control or invisible characters) raises
`ShellParseError`, and the policy then asks: a command that cannot be read is never allowed by a rule.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import field

from agentcli.record import record

MAX_LENGTH = 20_000
MAX_DEPTH = 12
MAX_COMMANDS = 400

_META = frozenset(" \t\n;&|<>()")
_BLANK = frozenset(" \t")
_RESERVED_SKIP = frozenset({"{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"})
_RESERVED_BAD = frozenset({"case", "esac", "function", "coproc", "select"})
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
# `${…}` forms that expand a value and evaluate nothing. Subscripts (`${a[i]}`), offsets (`${x:i}`),
# indirection (`${!x}`) and prompt expansion (`${x@P}`) evaluate text as arithmetic or as a prompt, which runs
# any `$(…)` the value holds (`x='a[$(cmd)]'`), so they are refused.
_PARAM = r"(?:[A-Za-z_]\w*(?:\[(?:\d+|[@*])\])?|\d+|[@*#?$!-])"
_SAFE_EXPANSION = re.compile(
    rf"#?{_PARAM}|{_PARAM}(?::?[-=+?]|%%?|##?|//?|/#|/%|\^\^?|,,?).*|[A-Za-z_]\w*@[QEAKaUuLk]", re.S
)
# Arithmetic that names no variable: a name's value is itself evaluated, subscripts and `$(…)` included.
_ARITH_LITERALS = re.compile(r"0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\$[#?$]")
_ARITH_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


class ShellParseError(ValueError):
    """The command line cannot be analysed with certainty."""


@record(frozen=False)
class Word:
    """One shell word. `text` has quotes removed; substitutions stay as written. `dynamic` marks a value
    known only at run time ($VAR, $(…), backticks); `glob` an unquoted wildcard; `tilde` a leading `~`."""

    text: str
    dynamic: bool = False
    glob: bool = False
    tilde: bool = False
    quoted: bool = False
    raw: str = ""


@record(frozen=False)
class Redirect:
    op: str
    target: Word | None  # None for descriptor duplication such as 2>&1

    @property
    def writes(self) -> bool:
        return self.op in _WRITE_OPS and self.target is not None


@record(frozen=False)
class SimpleCommand:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.assigns or self.words or self.redirects)


def parse(text: str) -> list[SimpleCommand]:
    """Every simple command `text` runs, in order of appearance. Raises ShellParseError."""
    if len(text) > MAX_LENGTH:
        raise ShellParseError(f"command longer than {MAX_LENGTH} characters")
    _check_characters(text)
    out: list[SimpleCommand] = []
    _Scanner(text, out, 0).parse_list(None)
    return out


def _check_characters(text: str) -> None:
    for ch in text:
        if ch in "\t\n" or " " <= ch < "\x7f":
            continue
        cat = unicodedata.category(ch)
        # Control, format (zero-width) and non-ASCII space characters make what is shown differ from what runs.
        if cat in ("Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cn"):
            raise ShellParseError(f"unusual character U+{ord(ch):04X} in command")


class _Scanner:
    def __init__(self, text: str, out: list[SimpleCommand], depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ShellParseError("nesting too deep")
        self.s = text
        self.i = 0
        self.out = out
        self.depth = depth
        self.heredocs: list[tuple[str, bool, bool]] = []  # delimiter, strip tabs, expands

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def emit(self, cmd: SimpleCommand) -> SimpleCommand:
        if not cmd.empty():
            self.out.append(cmd)
            if len(self.out) > MAX_COMMANDS:
                raise ShellParseError("too many commands")
        return SimpleCommand()

    def parse_list(self, closer: str | None) -> None:
        """Parse commands until `closer` (consumed) or the end of text."""
        cur = SimpleCommand()
        while True:
            self.skip_blanks()
            c = self.peek()
            if not c:
                if closer:
                    raise ShellParseError(f"missing '{closer}'")
                self.emit(cur)
                return
            if closer and c == closer:
                self.i += 1
                self.emit(cur)
                return
            if c == "#":
                while self.peek() and self.peek() != "\n":
                    self.i += 1
            elif c == "\n":
                self.i += 1
                cur = self.emit(cur)
                self.read_heredocs()
            elif c in "<>" and self.peek(1) == "(":
                cur.words.append(self.process_substitution())
            elif c in "<>" or (c == "&" and self.peek(1) == ">") or self.at_fd_redirect():
                cur.redirects.append(self.redirect())
            elif c in ";&|":
                self.operator()
                cur = self.emit(cur)
            elif c == "(":
                cur = self.open_paren(cur)
            elif c == ")":
                raise ShellParseError("unexpected ')'")
            else:
                cur = self.word_or_reserved(cur)

    def skip_blanks(self) -> None:
        while True:
            c = self.peek()
            if c in _BLANK and c:
                self.i += 1
            elif c == "\\" and self.peek(1) == "\n":
                self.i += 2
            else:
                return

    def at_fd_redirect(self) -> bool:
        j = self.i
        while j < len(self.s) and self.s[j].isdigit():
            j += 1
        return j > self.i and j < len(self.s) and self.s[j] in "<>"

    def operator(self) -> None:
        two = self.s[self.i : self.i + 2]
        if two == ";;" or two == ";&":
            raise ShellParseError("case clauses are not supported")
        self.i += 2 if two in ("&&", "||", "|&") else 1

    def open_paren(self, cur: SimpleCommand) -> SimpleCommand:
        if cur.words or cur.assigns:
            raise ShellParseError("function definitions and arrays are not supported")
        if self.peek(1) == "(":
            self.arithmetic(self.i + 2)
            cur.words.append(Word("((", dynamic=False))
            return cur
        self.i += 1
        self.emit(cur)
        self.parse_list(")")
        return SimpleCommand()

    def arithmetic(self, start: int) -> None:
        """Skip `((…))` / `$((…))`; reject substitutions inside, which would run commands."""
        depth, j = 2, start
        while j < len(self.s) and depth:
            depth += {"(": 1, ")": -1}.get(self.s[j], 0)
            j += 1
        if depth:
            raise ShellParseError("unterminated arithmetic")
        body = self.s[start : j - 2]
        if "$(" in body or "`" in body:
            raise ShellParseError("command substitution inside arithmetic")
        _check_arithmetic(body)
        self.i = j

    def word_or_reserved(self, cur: SimpleCommand) -> SimpleCommand:
        word = self.read_word()
        if not cur.words and not word.quoted and not word.dynamic:
            if word.text in _RESERVED_SKIP:
                return self.emit(cur)
            if word.text in _RESERVED_BAD:
                raise ShellParseError(f"'{word.text}' is not supported")
            if word.text == "for":
                self.skip_for_header()
                return self.emit(cur)
            if word.text == "[[":
                self.skip_test(cur)
                return cur
        name, eq, _ = word.raw.partition("=")
        if eq and not cur.words and name.isidentifier() and name.isascii():
            cur.assigns.append((name, word))
            return cur
        cur.words.append(word)
        return cur

    def skip_for_header(self) -> None:
        """`for NAME in words…` — the words may hold substitutions, which are parsed; the rest runs nothing."""
        while True:
            self.skip_blanks()
            c = self.peek()
            if not c or c in ";\n":
                return
            if c in _META:
                raise ShellParseError("unexpected token in for header")
            self.read_word()

    def skip_test(self, cur: SimpleCommand) -> None:
        """`[[ … ]]` reads nothing and writes nothing, but may hold substitutions: refuse those."""
        end = self.s.find("]]", self.i)
        if end < 0:
            raise ShellParseError("missing ']]'")
        body = self.s[self.i : end]
        if "$(" in body or "`" in body or "<(" in body:
            raise ShellParseError("substitution inside [[ ]]")
        _check_test(body)
        cur.words.append(Word("[["))
        self.i = end + 2

    def redirect(self) -> Redirect:
        while self.peek().isdigit():
            self.i += 1
        for op in ("&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<<", "<>", ">", "<"):
            if self.s.startswith(op, self.i):
                self.i += len(op)
                break
        self.skip_blanks()
        if op in ("<<", "<<-"):
            delim = self.read_word()
            text = delim.text
            self.heredocs.append((text, op == "<<-", not delim.quoted))
            return Redirect(op, None)
        if not self.peek() or self.peek() in _META:
            raise ShellParseError(f"missing target after '{op}'")
        target = self.read_word()
        if op in (">&", "<&"):
            if target.text.isdigit() or target.text == "-":
                return Redirect(op, None)
            op = ">" if op == ">&" else "<"
        return Redirect(op, target)

    def read_heredocs(self) -> None:
        for delim, strip, expands in self.heredocs:
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                line = self.s[self.i : end]
                self.i = min(end + 1, len(self.s))
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                if expands and ("$(" in line or "`" in line):
                    raise ShellParseError("command substitution inside a here-document")
        self.heredocs.clear()

    def process_substitution(self) -> Word:
        self.i += 2
        self.parse_list(")")
        return Word("<(…)", dynamic=True)

    def read_word(self) -> Word:
        w = Word("")
        parts: list[str] = []
        start = self.i
        while True:
            c = self.peek()
            if not c or c in _META:
                break
            if c == "\\":
                nxt = self.peek(1)
                self.i += 2
                if nxt and nxt != "\n":
                    parts.append(nxt)
                    w.quoted = True
                continue
            if c == "'":
                parts.append(self.single_quoted())
                w.quoted = True
            elif c == '"':
                parts.append(self.double_quoted(w))
                w.quoted = True
            elif c == "$":
                parts.append(self.dollar(w, in_quotes=False))
            elif c == "`":
                parts.append(self.backtick(w))
            else:
                if c in "*?[{":
                    w.glob = True
                if c == "~" and self.i == start:
                    w.tilde = True
                parts.append(c)
                self.i += 1
        w.text = "".join(parts)
        w.raw = self.s[start : self.i]
        brackets = "[" in w.text and "]" in w.text
        if w.glob and not any(c in w.text for c in "*?,") and not brackets:
            w.glob = False  # a lone `[` (the test command) or `{}` (find -exec) expands to nothing
        return w

    def single_quoted(self) -> str:
        end = self.s.find("'", self.i + 1)
        if end < 0:
            raise ShellParseError("unterminated single quote")
        text = self.s[self.i + 1 : end]
        self.i = end + 1
        return text

    def double_quoted(self, w: Word) -> str:
        self.i += 1
        parts: list[str] = []
        while True:
            c = self.peek()
            if not c:
                raise ShellParseError("unterminated double quote")
            if c == '"':
                self.i += 1
                return "".join(parts)
            if c == "\\" and self.peek(1) in ('"', "\\", "$", "`", "\n"):
                if self.peek(1) != "\n":
                    parts.append(self.peek(1))
                self.i += 2
            elif c == "$":
                parts.append(self.dollar(w, in_quotes=True))
            elif c == "`":
                parts.append(self.backtick(w))
            else:
                parts.append(c)
                self.i += 1

    def dollar(self, w: Word, in_quotes: bool) -> str:
        nxt = self.peek(1)
        start = self.i
        if nxt == "(" and self.peek(2) == "(":
            self.arithmetic(self.i + 3)
        elif nxt == "(":
            self.i += 2
            _Scanner.nested(self, ")")
        elif nxt == "{":
            end = self.s.find("}", self.i)
            if end < 0:
                raise ShellParseError("unterminated ${")
            body = self.s[self.i + 2 : end]
            if "$(" in body or "`" in body or "{" in body:
                raise ShellParseError("substitution inside ${…}")
            if not _SAFE_EXPANSION.fullmatch(body):
                raise ShellParseError(f"${{{body}}} may evaluate its value as code")
            self.i = end + 1
        elif nxt == "'" and not in_quotes:
            self.i += 1
            return self.single_quoted().replace("\\n", "\n").replace("\\t", "\t")
        elif nxt.isalnum() or nxt == "_":
            self.i += 1
            while self.peek().isalnum() or self.peek() == "_":
                self.i += 1
        elif nxt and nxt in "@*#?$!-":
            self.i += 2
        elif nxt == "[":
            raise ShellParseError("$[…] arithmetic")
        else:
            self.i += 1
            return "$"
        w.dynamic = True
        return self.s[start : self.i]

    def nested(self, closer: str) -> None:
        """Parse a `$(…)` body in place: same text, deeper nesting, commands appended to the same list."""
        inner = _Scanner(self.s, self.out, self.depth + 1)
        inner.i = self.i
        inner.parse_list(closer)
        self.i = inner.i

    def backtick(self, w: Word) -> str:
        j = self.i + 1
        body: list[str] = []
        while j < len(self.s) and self.s[j] != "`":
            if self.s[j] == "\\" and j + 1 < len(self.s) and self.s[j + 1] in "`\\$":
                body.append(self.s[j + 1])
                j += 2
                continue
            body.append(self.s[j])
            j += 1
        if j >= len(self.s):
            raise ShellParseError("unterminated backtick")
        _Scanner("".join(body), self.out, self.depth + 1).parse_list(None)
        text = self.s[self.i : j + 1]
        self.i = j + 1
        w.dynamic = True
        return text


def _check_arithmetic(body: str) -> None:
    rest = _ARITH_LITERALS.sub("0", body)
    if any(c.isalpha() or c in "_$" for c in rest):
        raise ShellParseError("arithmetic on a variable evaluates its value as code")


def _check_test(body: str) -> None:
    """`[[ -v name ]]` and `[[ x -eq y ]]` evaluate names and subscripts as arithmetic: only literals pass."""
    tokens = body.split()
    for k, tok in enumerate(tokens):
        if tok in ("-v", "-R"):
            raise ShellParseError(f"[[ {tok} ]] evaluates a subscript")
        if tok in _ARITH_OPS:
            operands = tokens[k - 1 : k] + tokens[k + 1 : k + 2]
            if len(operands) < 2 or any(not op.lstrip("-").isdigit() for op in operands):
                raise ShellParseError("arithmetic comparison of a variable evaluates its value as code")
