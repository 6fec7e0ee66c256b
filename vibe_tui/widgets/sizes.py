"""A widget's laid-out size, kept without asking for a second layout.

Textual's ``Widget.virtual_size`` is a reactive that asks for a layout when it changes,
and the layout itself sets it: every layout that changed a size was followed by another
layout of the whole screen, which found nothing to move but was paid for like the first
(arranging the pane and painting it whole). A streaming answer changes the sizes of its
part, its view, its turn and the pane at every row it grows, so half the frames of a
streamed answer were those second layouts (figures in bench/README.md); a line mounted
in the conversation, or a tool call's line that changes, cost two as well. Widgets whose
size only follows their content use this instead: the size is kept, and the layout that
set it (which painted what moved) stands.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive


def laid_out_size() -> Reactive[Size]:
    """A ``virtual_size`` that repaints when it changes, without a second layout."""
    return Reactive(Size(0, 0), layout=False, repaint=False)
