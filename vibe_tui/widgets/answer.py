"""One model answer, drawn as Markdown, streamed or whole.

The stream is fed through ``Markdown.get_stream()``; on top of its own batching,
``StreamedAnswer`` gathers deltas and hands them over at most FLUSH_INTERVAL_S apart.
Each hand-over costs a Markdown parse of the last block, a layout and a repaint of the
pane (20-40 ms with Textual 8 on a small machine), so doing it per token would keep a
core busy; ten times a second reads as smooth and leaves the keys responsive.

Imported lazily by the conversation: Markdown and its parser cost ~0.1 s at import that
the first frame need not wait for (the app preloads them in the background).
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.widgets import Markdown

from vibe_tui.safe_text import safe

if TYPE_CHECKING:
    from textual.widget import AwaitMount, Widget
    from textual.widgets.markdown import MarkdownStream

# Deltas are gathered and handed to the Markdown parser at most this often: the parser
# and the layout run a few times a second rather than once per token.
FLUSH_INTERVAL_S = 1 / 10

# Where an escape sequence may begin (7-bit ESC and the 8-bit C1 introducers).
ESCAPE_STARTS = re.compile("[\x1b\x90\x98\x9b\x9d\x9e\x9f]")
CSI_DONE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]")
STRING_ENDS = ("\x07", "\x1b\\", "\x9c", "\n")
MAX_HELD = 512  # a sequence longer than this is not waited for


class EscapeCarry:
    """Holds back an escape sequence cut off at the end of a streamed delta.

    ``safe()`` sees one delta at a time; a sequence split across two deltas would lose
    only its ESC and show its payload (a clipboard write, a link target) as text. Held
    until the next delta, the whole sequence is removed."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, text: str) -> str:
        text = self._held + text
        start = unfinished_escape(text)
        self._held = text[start:] if start is not None else ""
        return safe(text if start is None else text[:start])

    def flush(self) -> str:
        held, self._held = self._held, ""
        return safe(held)


def unfinished_escape(text: str) -> int | None:
    """Where an escape sequence starts that the end of ``text`` leaves unfinished."""
    starts = list(ESCAPE_STARTS.finditer(text, max(0, len(text) - MAX_HELD)))
    if not starts:
        return None
    start = starts[-1].start()
    tail = text[start:]
    if tail == "\x1b":
        return start
    if tail.startswith(("\x1b[", "\x9b")):
        return None if CSI_DONE.match(tail) else start
    if tail.startswith(("\x1b]", "\x1bP", "\x1bX", "\x1b^", "\x1b_")) or tail[0] != "\x1b":
        return None if any(end in tail[1:] for end in STRING_ENDS) else start
    return None  # a two-character ESC sequence is complete


class AnswerView(Markdown):
    """An answer; its ``source`` is the Markdown shown so far."""

    DEFAULT_CSS = """
    AnswerView {
        margin: 0 0 1 0;
        padding: 0 1;
        background: transparent;
    }
    """


class StreamedAnswer:
    """Feeds one AnswerView from text deltas. Adding a delta never waits on drawing, so
    the app's message queue, which also carries the keys, stays short.

    The flush timer belongs to ``owner`` (the conversation), not to the view: a view's
    own timer callbacks run in its message pump, which must stay free to mount it."""

    def __init__(self, view: AnswerView, mounted: AwaitMount, owner: Widget) -> None:
        self.view = view
        self._mounted = mounted
        self._owner = owner
        self._escapes = EscapeCarry()
        self._pending: list[str] = []
        self._stream: MarkdownStream | None = None
        self._lock = asyncio.Lock()  # one write at a time, in order
        self._timer: Timer | None = None
        self._finished = False

    def add(self, text: str) -> None:
        self._pending.append(self._escapes.feed(text))
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is None:
            self._timer = self._owner.set_timer(FLUSH_INTERVAL_S, self.flush)

    async def flush(self) -> None:
        self._timer = None
        if not self.view.is_mounted:
            if not self._finished:
                self._schedule()  # the stream appends to a mounted widget: next time
            return
        async with self._lock:
            text = "".join(self._pending)
            self._pending.clear()
            if text:
                if self._stream is None:
                    self._stream = Markdown.get_stream(self.view)
                await self._stream.write(text)

    async def finish(self) -> None:
        """The answer is complete: draw what is left and stop streaming. (A flush the
        timer has yet to run then finds nothing left; stopping the timer instead could
        cancel a flush half-way and lose its text.)"""
        await self._mounted
        self._pending.append(self._escapes.flush())
        await self.flush()
        self._finished = True
        async with self._lock:
            if self._stream is not None:
                await self._stream.stop()
