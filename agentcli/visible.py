"""Text from the model, a tool or a web page made safe to put on a terminal: every character that would act
instead of showing is shown as an escape.

A command in an approval prompt must read as what will run. Escape sequences (`ESC[2K` erases the line, OSC
sets the title or the clipboard, C1 `CSI`), carriage returns and backspaces (overwrite what came before), and
bidirectional overrides (reorder what follows) can all make `rm -rf ~ ; ls` look like `ls`. Zero-width
characters hide text that is there. Each becomes `\\x1b`, `\\r`, `\\u202e` …; newlines and tabs stay.
"""

from __future__ import annotations

import re

# In flowing text (assistant markdown, tool output) a zero-width joiner builds emoji: only what acts is escaped.
_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\r": "\\r", "\x1b": "\\x1b", "\x08": "\\b", "\x0b": "\\v", "\x0c": "\\f", "\x00": "\\0"}


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _hides(ch: str) -> bool:
    # Not printable: C0/C1 controls, bidi and other format characters (zero-width, soft hyphen, tags), line and
    # paragraph separators, spaces other than ' ', private-use and unassigned code points. Unknown is escaped.
    return not ch.isprintable() and ch not in "\n\t"


def visible(text: str) -> str:
    """Every control, bidi and invisible character of `text` as an escape (for what a person approves)."""
    if text.isprintable():
        return text
    return "".join(_escape(ch) if _hides(ch) else ch for ch in text)


def one_line(text: str) -> str:
    """`visible`, and newlines and tabs escaped too: for a line of a list that must stay one line."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def inert(text: str) -> str:
    """Controls and bidi characters of `text` as escapes, joiners kept (for text that is only read)."""
    return _ACTING.sub(lambda m: _escape(m.group()), text)


def hidden_characters(text: str) -> list[str]:
    """The characters `visible` would escape, and non-ASCII letters that may pass for ASCII ones (a Cyrillic
    `а` in a domain), named as `U+0430`: said beside a command so a lookalike is not approved unseen."""
    found = {f"U+{ord(c):04X}" for c in text if _hides(c) or (c.isalpha() and not c.isascii())}
    return sorted(found)
