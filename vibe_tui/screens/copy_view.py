"""``/copy … view``: the text to copy alone on the screen, for selecting by hand.

The app takes the mouse, so a terminal's own selection needs Shift (Option on macOS) while
dragging, and across the conversation it would take borders and the timeline with it.
Here the text fills the screen as it is, read-only: the terminal's selection picks only
it, and the app's own (drag, then Ctrl+C) copies through the clipboard sequence.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

HELP = "Shift+drag: your terminal's selection · drag, Ctrl+C: copy · Esc closes"


class CopyView(ModalScreen[None]):
    # No border or gutter: a terminal's selection would take their characters along.
    DEFAULT_CSS = """
    CopyView {
        & TextArea, & TextArea:focus { height: 1fr; border: none; padding: 0; }
        & Label { width: 100%; color: $text-muted; background: $panel; }
    }
    """
    AUTO_FOCUS = "TextArea"
    BINDINGS = [Binding("escape", "dismiss", "close", show=False)]

    def __init__(self, text: str, what: str) -> None:
        super().__init__()
        self.text = text
        self.what = what

    def compose(self) -> ComposeResult:
        yield Label(f"{self.what} · {HELP}")
        yield TextArea(self.text, read_only=True, soft_wrap=True, show_line_numbers=False,
                       highlight_cursor_line=False)
