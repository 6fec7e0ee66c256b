"""The keys of a diff under review, shared by the screens that show one (the approval of
an edit, the Changes screen): ``j``/``k`` move between hunks, ``t`` switches unified /
side by side. Each screen says which ``DiffView`` is on screen (``diff_view``) and how
its layout switches (``action_toggle_split``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from vibe_tui.widgets.diff_view import DiffView

SPLIT_MIN_WIDTH = 140  # side by side by default from this many terminal columns

DIFF_REVIEW_BINDINGS = [
    Binding("j", "hunk(1)", "next hunk", show=False),
    Binding("k", "hunk(-1)", "previous hunk", show=False),
    Binding("t", "toggle_split", "unified / side by side", show=False),
]


class DiffReviewKeys:
    """Mixed into a screen before its Textual base class."""

    diff_view: DiffView | None  # the diff on screen, if any

    def action_hunk(self, step: int) -> None:
        if (view := self.diff_view) is not None:
            view.select_hunk(view.selected_hunk + step)
