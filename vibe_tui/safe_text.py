"""Text from the model or a tool never reaches the terminal raw.

A model (or a file it reads, or a command's output) can carry terminal escape sequences
that set the clipboard (OSC 52), plant links (OSC 8), retitle the window, move the
cursor, ask the terminal to answer back (DSR, DECRQSS), or reorder what the user reads
(Unicode bidi overrides). ``safe()`` makes such text inert before any view draws it.

What it does, and why:

- Escape sequences (7-bit ``ESC ...`` and 8-bit C1 forms such as U+009B CSI) are
  **removed** whole: they are formatting or attacks, never content, and removing them
  turns coloured tool output (``ls --color``, pytest) into clean text. String sequences
  (OSC, DCS, SOS, PM, APC) lose their payload up to BEL or ST, or up to the end of the
  line if unterminated, so a link target or a clipboard payload is never shown as text.
- Other control characters (C0 except ``\\n`` and ``\\t``, DEL, leftover C1) and the bidi
  overrides and isolates (U+202A-U+202E, U+2066-U+2069) are **shown escaped**, in Python
  notation (``\\x07``, ``\\x7f``, ``\\x85``, ``\\u202e``): visible, so a reviewer sees that
  something odd is there, and inert. LRM/RLM/ALM (U+200E, U+200F, U+061C) only affect
  neighbouring characters and appear in legitimate right-to-left text, so they stay.
- ``\\r\\n`` becomes ``\\n``; a lone ``\\r`` (progress bars redrawing a line) also becomes
  ``\\n``: each redraw shows on its own line rather than the frames running together.

``safe_name()`` is for a file name, a path or a command the user decides on (approve this
edit, revert that file): removing a sequence there would show a name other than the real
one (``esc.txt`` for ``esc\\e]0;X\\a.txt``), so every control character, ESC included, is
shown escaped instead and nothing is dropped. Newlines and tabs are escaped too, except in
a command's lines (``multiline=True``).

``safe()`` is stateless, so a sequence split across two streamed deltas is not
recognised as one: the ESC half is removed and the rest shows as harmless text.
"""

from __future__ import annotations

import re

from rich.text import Text

# Payload of a string sequence: up to its terminator (BEL, ESC \ or C1 ST), or to the
# end of the line when unterminated, so one stray OSC cannot swallow the whole output.
_STRING_BODY = r"[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"

_SEQUENCE = re.compile(
    "|".join(
        (
            r"\x1b\[[0-?]*[ -/]*[@-~]",  # CSI: cursor moves, SGR colour, DSR...
            r"\x1b[\]PX^_]" + _STRING_BODY,  # OSC, DCS, SOS, PM, APC
            r"\x9b[0-?]*[ -/]*[@-~]",  # 8-bit CSI
            r"[\x90\x98\x9d\x9e\x9f]" + _STRING_BODY,  # 8-bit DCS, SOS, OSC, PM, APC
            r"\x1b[ -/]*[0-~]?",  # other ESC sequences (RIS, charset...), lone ESC
        )
    )
)

_NEWLINE = re.compile(r"\r\n?")

_BIDI_CONTROLS = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPED = [
    *(c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D, 0x1B)),
    0x7F,
    *range(0x80, 0xA0),
]
_TABLE = {c: f"\\x{c:02x}" for c in _ESCAPED} | {c: f"\\u{c:04x}" for c in _BIDI_CONTROLS}

# One scan decides whether any work is needed: most streamed deltas are plain text.
_SUSPECT = re.compile("[" + re.escape("".join(map(chr, [*_TABLE, 0x0D, 0x1B]))) + "]")


# Python's own short forms for the whitespace controls, for names a reader recognises.
_SHORT = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
_NAME_TABLE = _TABLE | {0x1B: "\\x1b"} | _SHORT
_LINES_TABLE = {c: escaped for c, escaped in _NAME_TABLE.items() if c not in (0x09, 0x0A)}
_NAME_SUSPECT = re.compile("[" + re.escape("".join(map(chr, _NAME_TABLE))) + "]")


def safe(text: str) -> str:
    """``text`` with escape sequences removed and other controls made visible."""
    if _SUSPECT.search(text) is None:
        return text
    text = _SEQUENCE.sub("", text)
    text = _NEWLINE.sub("\n", text)
    return text.translate(_TABLE)


def plain(text: str) -> Text:
    """A Rich ``Text`` of ``safe(text)``: never parsed as Rich markup."""
    return Text(safe(text))


def safe_name(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character shown escaped and nothing removed: a name,
    path or command as it really is. ``multiline`` keeps newlines and tabs."""
    if _NAME_SUSPECT.search(text) is None:
        return text
    return text.translate(_LINES_TABLE if multiline else _NAME_TABLE)
