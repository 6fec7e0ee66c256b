"""A terminal apart from its process: the bytes each key sends, and the screen ``pyte``
renders the program's output on, with a bounded scrollback."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import pyte
from pyte.screens import Margins

SCROLLBACK_LINES = 1000  # kept per session

# -- keys -------------------------------------------------------------------------------

KEYS = {
    "enter": "\r",
    "return": "\r",
    "tab": "\t",
    "esc": "\x1b",
    "escape": "\x1b",
    "backspace": "\x7f",
    "space": " ",
    "delete": "\x1b[3~",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
}
# Cursor keys differ in "application cursor keys" mode (DECCKM, set by curses programs
# through keypad()): ESC O A instead of ESC [ A.
CURSOR_KEYS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
DECCKM = 1 << 5  # pyte stores private mode N as N << 5
# Keys of a person's keyboard (the terminal view) that the model has no names for.
KEYBOARD_KEYS = {
    "insert": "\x1b[2~",
    "backtab": "\x1b[Z",
    "ctrl-space": "\x00",
    "ctrl-backslash": "\x1c",
    "ctrl-right_square_bracket": "\x1d",
    "ctrl-circumflex_accent": "\x1e",
    "ctrl-underscore": "\x1f",
    **{f"f{n}": f"\x1bO{final}" for n, final in zip(range(1, 5), "PQRS")},
    **{f"f{n}": f"\x1b[{code}~" for n, code in zip(range(5, 13),
                                                   (15, 17, 18, 19, 20, 21, 23, 24))},
}
BRACKETED_PASTE = 2004 << 5  # the program tells pasted text from typed text


def key_bytes(name: str, app_cursor: bool) -> str:
    """The bytes a key sends: a name of KEYS, CURSOR_KEYS or KEYBOARD_KEYS, or ctrl-a
    to ctrl-z."""
    if name in KEYS:
        return KEYS[name]
    if name in CURSOR_KEYS:
        return ("\x1bO" if app_cursor else "\x1b[") + CURSOR_KEYS[name]
    if name in KEYBOARD_KEYS:
        return KEYBOARD_KEYS[name]
    return chr(ord(name[-1]) - ord("a") + 1)  # ctrl-a .. ctrl-z


# -- the screen ------------------------------------------------------------------------


def render_line(line: Any, columns: int) -> str:
    """One pyte buffer line as text, trailing blanks trimmed. The second cell of a wide
    character holds "", so a plain join shows the character once without the wcwidth
    call per cell that pyte's own ``display`` makes."""
    return "".join(line[x].data for x in range(columns)).rstrip()


class TerminalScreen(pyte.Screen):
    """pyte's screen with a bounded scrollback, answering the program's queries
    (cursor position, device attributes) through ``reply``."""

    def __init__(self, cols: int, rows: int, reply: Callable[[str], None]) -> None:
        # Buffer rows as pyte left them: a row that scrolled off is never written again,
        # so it is kept as it is and rendered only when read (scrolling stays cheap).
        self.scrollback: deque[Any] = deque(maxlen=SCROLLBACK_LINES)
        self.scrolled = 0  # lines that ever scrolled off the top
        self._reply = reply
        super().__init__(cols, rows)

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        # Only a whole-screen scroll feeds the scrollback; a curses program scrolling a
        # region of its window is redrawing, not printing.
        if self.cursor.y == bottom and top == 0 and bottom == self.lines - 1:
            self.scrollback.append(self.buffer[top])
            self.scrolled += 1
        super().index()

    def write_process_input(self, data: str) -> None:
        self._reply(data)

    def text_lines(self) -> list[str]:
        lines = [render_line(self.buffer[y], self.columns) for y in range(self.lines)]
        while lines and not lines[-1]:
            lines.pop()
        return lines
