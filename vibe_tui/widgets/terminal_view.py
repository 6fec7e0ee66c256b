"""A pseudo-terminal session drawn live in the conversation, and typed into by the user.

The view watches a ``PtySession`` (reached through ``vibe_tui.core.terminals``): the emulator's screen
is drawn cell by cell with its colours, redrawn at most once a frame however fast the
program prints. Focused (a click, or Enter on its tool call), it sends every key to the
program, Enter, Tab, arrows and Ctrl keys included, and a single Esc too; Esc twice in a
row leaves it for the prompt, and so does the program's exit. The last screen stays, with
the exit code.
"""

from __future__ import annotations

import time
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from vibe_tui.core.terminals import PtySession, key_sequence, pastes_bracketed

# Output arrives in pieces of 1 KiB: one redraw per frame, not one per piece.
FRAME_S = 1 / 30
# Two Esc presses closer than this leave the terminal; a slower Esc is the program's.
DOUBLE_ESC_S = 0.6
# Textual's key names -> names ``key_sequence`` knows (ctrl+letter is handled apart).
KEY_NAMES = {
    "enter": "enter",
    "tab": "tab",
    "shift+tab": "backtab",
    "escape": "esc",
    "backspace": "backspace",
    "ctrl+h": "backspace",
    "delete": "delete",
    "insert": "insert",
    "pageup": "pageup",
    "pagedown": "pagedown",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    "home": "home",
    "end": "end",
    "ctrl+@": "ctrl-space",
    "ctrl+backslash": "ctrl-backslash",
    "ctrl+right_square_bracket": "ctrl-right_square_bracket",
    "ctrl+circumflex_accent": "ctrl-circumflex_accent",
    "ctrl+underscore": "ctrl-underscore",
    **{f"f{n}": f"f{n}" for n in range(1, 13)},
}
# pyte's colour names -> Rich's; 256 and true colours come as six hex digits.
_PYTE_COLOURS = {"brown": "yellow", "brightbrown": "bright_yellow"}


def key_data(event: events.Key, app_cursor: bool) -> bytes | None:
    """The bytes a terminal sends for a key press, or None for a key it has no code for."""
    key = event.key
    name = KEY_NAMES.get(key)
    if name is None and key.startswith("ctrl+") and len(key) == 6 and key[5].isalpha():
        name = f"ctrl-{key[5]}"
    if name is not None:
        return key_sequence(name, app_cursor)
    if event.is_printable and event.character:
        return event.character.encode("utf-8", "surrogatepass")
    return None


def _colour(name: str) -> str | None:
    if name == "default":
        return None
    if len(name) == 6 and all(c in "0123456789abcdefABCDEF" for c in name):
        return f"#{name}"
    name = _PYTE_COLOURS.get(name, name)
    return f"bright_{name[6:]}" if name.startswith("bright") and "_" not in name else name


@lru_cache(maxsize=1024)
def cell_style(fg: str, bg: str, bold: bool, italics: bool, underscore: bool,
               strikethrough: bool, reverse: bool) -> Style:
    """A cell's attributes as a Rich style (few combinations: cached)."""
    try:
        return Style(color=_colour(fg), bgcolor=_colour(bg), bold=bold or None,
                     italic=italics or None, underline=underscore or None,
                     strike=strikethrough or None, reverse=reverse or None)
    except Exception:  # a colour Rich does not know: draw the text plain
        return Style(bold=bold or None, reverse=reverse or None)


class TerminalView(Widget):
    """One pseudo-terminal session. It reads the session and types into it; it owns
    nothing of it: the session lives on (and is closed) in the agent's tool context."""

    DEFAULT_CSS = """
    TerminalView {
        width: auto;
        max-width: 100%;
        height: auto;
        margin: 0 0 1 3;
        padding: 0 1;
        background: $background;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        border-subtitle-color: $text-disabled;
        &:focus {
            border: round $accent;
            border-subtitle-color: $accent;
        }
        &.-ended { border: round $panel; }
    }
    """

    def __init__(self, session: PtySession, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.can_focus = True
        self.session = session
        self._frame: Timer | None = None  # the pending redraw
        self._escape_at: float | None = None  # when a lone Esc was sent
        self._shown_rows = self._rows_in_use()
        self._describe()

    # ---- following the session ----------------------------------------------------------

    def on_mount(self) -> None:
        self.session.add_listener(self._on_session_change)

    def on_unmount(self) -> None:
        self.session.remove_listener(self._on_session_change)
        self._cancel_frame()

    def _on_session_change(self, session: PtySession) -> None:
        # Called for every piece of output: only schedule, draw once per frame.
        if self._frame is None and self.is_mounted:
            self._frame = self.set_timer(FRAME_S, self._draw, name="terminal-frame")

    def _cancel_frame(self) -> None:
        if self._frame is not None:
            self._frame.stop()
            self._frame = None

    def _draw(self) -> None:
        self._frame = None
        rows = self._rows_in_use()
        resized = rows != self._shown_rows
        self._shown_rows = rows
        self._describe()
        self.refresh(layout=resized)
        if self.session.state != "running" and self.has_focus:
            self.leave()  # nothing reads keys any more: they are the prompt's again

    def _rows_in_use(self) -> int:
        """Rows down to the last one drawn on (or the cursor's): a REPL's view grows as
        it prints instead of starting as a tall empty box."""
        session = self.session
        used = len(session.lines)
        cursor = session.cursor
        if cursor is not None:
            used = max(used, cursor[0])
        return max(1, min(used, session.rows))

    def _describe(self, focused: bool | None = None) -> None:
        session = self.session
        focused = self.has_focus if focused is None else focused
        self.border_title = f"{session.id} · {session.command.strip().splitlines()[0]}"
        if session.state == "running":
            hint = "Esc Esc to leave" if focused else "click or Enter to type"
            self.border_subtitle = f"running · {hint}"
        elif session.state == "exited":
            self.border_subtitle = f"exited with code {session.exit_code}"
        else:
            code = "" if session.exit_code is None else f" · exit code {session.exit_code}"
            self.border_subtitle = f"closed: {session.closed_reason}{code}"
        self.set_class(session.state != "running", "-ended")
        self.can_focus = session.state == "running"

    # ---- drawing ------------------------------------------------------------------------

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.session.cols

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._shown_rows

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        screen = self.session.screen
        if y >= min(screen.lines, self._shown_rows):
            return Strip.blank(width, self.rich_style)
        cursor = self.session.cursor if self.has_focus else None
        cursor_x = cursor[1] - 1 if cursor is not None and cursor[0] - 1 == y else -1
        segments = list(self._row_segments(screen.buffer[y], screen.columns, cursor_x))
        return Strip(segments).crop_extend(0, width, self.rich_style)

    def _row_segments(self, line, columns: int, cursor_x: int):
        """Runs of cells with the same attributes, as Rich segments."""
        base = self.rich_style
        run: list[str] = []
        run_key: tuple | None = None
        for x in range(columns):
            char = line[x]
            key = (char.fg, char.bg, char.bold, char.italics, char.underscore,
                   char.strikethrough, char.reverse != (x == cursor_x))
            if key != run_key and run:
                yield Segment("".join(run), base + cell_style(*run_key))
                run = []
            run_key = key
            run.append(char.data)
        if run and run_key is not None:
            yield Segment("".join(run), base + cell_style(*run_key))

    # ---- typing -------------------------------------------------------------------------

    # Textual calls these before its own handlers set ``has_focus``: say it outright.
    def on_focus(self) -> None:
        self._escape_at = None
        self._describe(focused=True)

    def on_blur(self) -> None:
        self._describe(focused=False)

    async def on_key(self, event: events.Key) -> None:
        # Every key is the program's: none may reach the app's bindings (Esc would
        # interrupt the turn, Tab move the focus).
        event.stop()
        event.prevent_default()
        if event.key == "escape":
            now = time.monotonic()
            if self._escape_at is not None and now - self._escape_at < DOUBLE_ESC_S:
                self.leave()
                return
            self._escape_at = now
        else:
            self._escape_at = None
        data = key_data(event, self.session.app_cursor)
        if data is not None and self.session.state == "running":
            await self.session.type_raw(data)

    async def on_paste(self, event: events.Paste) -> None:
        event.stop()
        if self.session.state != "running" or not event.text:
            return
        data = event.text.replace("\r\n", "\r").replace("\n", "\r")
        if pastes_bracketed(self.session):
            data = f"\x1b[200~{data}\x1b[201~"
        await self.session.type_raw(data.encode("utf-8", "surrogatepass"))

    def leave(self) -> None:
        """Give the keys back to the prompt."""
        self._escape_at = None
        try:
            self.screen.query_one("PromptInput").focus()
        except NoMatches:
            self.blur()
