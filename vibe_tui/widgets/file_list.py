"""A list of files to move through, one line each: the path and a short status.

Used where several files are looked at one by one (an edit review with several files,
the Changes screen). Paths come from the model or the disk, so they are shown as plain
text, never parsed as markup, with any control character in them escaped (``safe_name``). The host listens for ``OptionList.OptionHighlighted``.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from vibe_tui.safe_text import safe_name


class FileList(OptionList):
    """``show(entries)`` with (path, status) pairs; the highlighted index is the current file."""

    DEFAULT_CSS = """
    FileList {
        height: auto;
        max-height: 8;
        border: none;
        padding: 0;
        background: $surface;
        &:focus { border: none; }
    }
    """

    def show(self, entries: list[tuple[str, Content]], current: int | None = None) -> None:
        """Replace the lines; keep the highlight (or move it to ``current``)."""
        keep = self.highlighted if current is None else current
        self.set_options(Option(Content.assemble(safe_name(path), "  ", status))
                         for path, status in entries)
        if entries:
            self.highlighted = min(keep or 0, len(entries) - 1)
