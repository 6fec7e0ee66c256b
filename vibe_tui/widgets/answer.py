"""One model answer, drawn as Markdown, streamed or whole.

An answer is a few ``AnswerPart`` widgets, each a run of finished Markdown blocks drawn
by Rich (or of the lines of a long code block: ``answer_cuts``, ``answer_code``), and
one part for the unfinished tail. A streamed delta only redraws the tail: finished
parts keep their rendered lines and cached heights. Textual's own Markdown
widget mounts a widget per block (and more per list item and code fence); every layout
visits each of them, so a long answer made every flush cost a full re-arrangement of the
pane that the keys waited behind (figures in bench/README.md).

``StreamedAnswer`` gathers deltas and hands them over at most FLUSH_INTERVAL_S apart:
ten times a second reads as smooth and leaves the keys responsive. A tail that cannot be
cut (a long table or numbered list, a code block in a quote) is redrawn whole at every
flush, and its drawing grows with it; it is then handed over less often, so that drawing
it takes at most DRAW_SHARE of the screen's time.

Imported lazily by the conversation: Rich's Markdown and its parser take a noticeable
time to import that the first frame need not wait for (the app preloads them in the
background; figure in bench/README.md).
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown
from rich.segment import Segment
from textual.geometry import Size
from textual.timer import Timer
from textual.widget import Widget

from vibe_tui.safe_text import safe
from vibe_tui.widgets.answer_code import CODE_THEME, Tokens, block_tokens, draw_code, part_code
from vibe_tui.widgets.answer_cuts import OpenBlock, cut_point, following, split_parts
from vibe_tui.widgets.sizes import laid_out_size

if TYPE_CHECKING:
    from textual.app import RenderResult
    from textual.widget import AwaitMount

# Deltas are gathered and handed to the answer at most this often.
FLUSH_INTERVAL_S = 1 / 10
# A tail slow to draw is flushed this much less often than its drawing takes, and at least
# every MAX_FLUSH_INTERVAL_S: twice a second still reads as a live answer.
DRAW_SHARE = 0.1
MAX_FLUSH_INTERVAL_S = 0.5
# A streaming tail grows on screen this many rows at a time: a row more re-arranges the
# pane and, scrolled to its end, moves every visible row, so the whole pane is painted
# again; within the rows it has, a flush repaints the tail alone. Those layouts and
# repaints are most of the screen's time while an answer streams (bench/README.md). On a
# short screen, fewer: at most a fifth of its rows (an 80x24 terminal: 4), so the blank
# rows under the text stay a small share of the pane.
GROW_ROWS = 8
MIN_GROW_ROWS = 2

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


class AnswerPart(Widget):
    """A run of Markdown blocks, drawn by Rich as they are drawn in the whole answer:
    the space Rich puts between two blocks (and a list's numbering) depends on the block
    before, so a part is drawn after the last block of the part before it (its
    ``context``), and the context's own lines are left out. A part that starts inside
    a code block (``inside``) draws its lines of the block as Rich draws the block."""

    virtual_size = laid_out_size()

    DEFAULT_CSS = """
    AnswerPart {
        height: auto;
    }
    """

    def __init__(self, markdown: str, growing: bool = False, context: str = "",
                 inside: OpenBlock | None = None, continued: bool = False) -> None:
        super().__init__()
        self.markdown = markdown
        self.growing = growing  # the streaming tail: blank rows below its text
        self.context = context
        self.inside = inside
        self.continued = continued  # its last code block goes on in the next part
        self._tokens: Tokens | None = None  # its share of its whole block's lexing
        self._drawn: tuple[tuple, list[list[Segment]]] | None = None
        self._context_rows: tuple[tuple[str, int], int] | None = None

    def rows(self, lines: int) -> int:
        """The rows ``lines`` of text take: while growing, up to a whole step of growth."""
        if not self.growing:
            return lines
        step = grow_rows(self.app.size.height) if self.is_attached else GROW_ROWS
        return -(-lines // step) * step

    def render(self) -> RenderResult:
        return _DrawnOnce(self)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Textual would render the part again to count its lines; they are drawn already.
        console = self.app.console
        return self.rows(len(self.lines_for(console, self.app.console_options.update_width(width))))

    def lines_for(self, console: Console, options: ConsoleOptions) -> list[list[Segment]]:
        """The Markdown drawn at this width, drawn once: Textual renders a widget to
        measure its height and again to paint it, and drawing Markdown (its code blocks
        highlighted) is most of what a flush costs."""
        key = (self.context, self.inside, self.continued, self._tokens, self.markdown,
               options.max_width)
        if self._drawn is None or self._drawn[0] != key:
            # Drawn with the height Textual renders it at, Rich would fit the lines to it.
            options = options.reset_height()
            if self.inside is not None:
                lines = draw_code(console, options, self.inside, self.code(), self.continued,
                                  self._tokens)
            else:
                lines = _draw(console, options, self.context + self.markdown)
                lines = lines[self._rows_of_context(console, options):]
                if self.continued:
                    # It ends with a block's fence line: the block's one empty line and
                    # its bottom padding go, its lines are drawn by the parts below.
                    lines = lines[:-2]
            self._drawn = key, lines
        return self._drawn[1]

    def _rows_of_context(self, console: Console, options: ConsoleOptions) -> int:
        """The rows the context takes drawn alone (kept: the tail is drawn at each flush)."""
        key = (self.context, options.max_width)
        if self._context_rows is None or self._context_rows[0] != key:
            rows = len(_draw(console, options, self.context)) if self.context else 0
            self._context_rows = key, rows
        return self._context_rows[1]

    def set_markdown(self, markdown: str) -> None:
        drawn, self.markdown = self._drawn, markdown
        if drawn is not None and self.is_attached:
            # A layout re-arranges the whole screen; most flushes only lengthen the last
            # line, and then a repaint of this part is enough.
            width, lines = drawn[0][-1], drawn[1]
            console = self.app.console
            now = self.lines_for(console, console.options.update_width(width))
            if self.rows(len(now)) == self.rows(len(lines)):
                self.refresh()
                return
        self.refresh(layout=True)

    def stop_growing(self) -> None:
        """The stream ended: the blank rows below the text go."""
        if self.growing:
            self.growing = False
            if self.is_attached:
                self.refresh(layout=True)

    def code(self) -> str:
        """What a part that goes on with a code block draws of it."""
        return part_code(self.markdown, self.inside, self.continued)

    def use_tokens(self, tokens: Tokens) -> None:
        """Colour its code with these tokens (its own lexed within the whole block)."""
        self._tokens = tokens
        self.refresh()


def grow_rows(screen_rows: int) -> int:
    """How many rows a streaming tail grows by at a time on a screen this tall."""
    return max(MIN_GROW_ROWS, min(GROW_ROWS, screen_rows // 5))


def _draw(console: Console, options: ConsoleOptions, markdown: str) -> list[list[Segment]]:
    return console.render_lines(Markdown(markdown, code_theme=CODE_THEME), options, pad=False)


class _DrawnOnce:
    """A part's Markdown as a Rich renderable that reuses the part's drawn lines."""

    def __init__(self, part: AnswerPart) -> None:
        self.part = part

    def __rich_console__(self, console: Console, options: ConsoleOptions):
        new_line = Segment.line()
        lines = self.part.lines_for(console, options)
        for line in lines:
            yield from line
            yield new_line
        for _ in range(self.part.rows(len(lines)) - len(lines)):
            yield new_line


class AnswerView(Widget):
    """An answer; its ``source`` is the Markdown shown so far."""

    virtual_size = laid_out_size()

    DEFAULT_CSS = """
    AnswerView {
        height: auto;
        layout: vertical;
        margin: 0 0 1 0;
        padding: 0 1;
        background: transparent;
    }
    """

    def __init__(self, markdown: str = "", streaming: bool = False) -> None:
        super().__init__()
        self.source = markdown
        self.tail_drawn_in = 0.0  # seconds the last append took to draw the tail
        *self._parts, tail = split_parts(markdown)
        self._tail = AnswerPart(tail.markdown, growing=streaming, context=tail.context,
                                inside=tail.inside)

    def compose(self):
        for part in self._parts:
            yield AnswerPart(part.markdown, context=part.context, inside=part.inside,
                             continued=part.continued)
        yield self._tail

    async def append(self, text: str) -> None:
        """Add streamed text: finished blocks past PART_CHARS (or whole lines of a long
        code block) leave the tail for parts of their own, drawn once."""
        self.source += text
        tail = self._tail.markdown + text
        while done := cut_point(tail, self._tail.inside):
            inside, context = following(tail, done, self._tail.inside, self._tail.context)
            finished, tail = tail[:done], tail[done:]
            part = AnswerPart(finished, context=self._tail.context, inside=self._tail.inside,
                              continued=inside is not None)
            await self.mount(part, before=self._tail)
            if part.inside is not None and inside is None:
                self._recolour(part)  # the block is whole
            self._tail.context, self._tail.inside = context, inside
        started = time.perf_counter()
        self._tail.set_markdown(tail)
        self.tail_drawn_in = time.perf_counter() - started

    def end_stream(self) -> None:
        self._tail.stop_growing()
        if self._tail.inside is not None:
            self._recolour(self._tail)

    def on_mount(self) -> None:
        parts = list(self.query_children(AnswerPart))
        for part, after in zip(parts, [*parts[1:], None]):
            ends_a_block = part.inside is not None and (after is None or after.inside is None)
            if ends_a_block and not part.growing:
                self._recolour(part)

    def _recolour(self, last: AnswerPart) -> None:
        """Lex the code block that ``last`` ends again as one (in the background), and
        colour each of its parts by that where it differs."""
        parts = list(self.query_children(AnswerPart))
        first = end = parts.index(last) + 1
        while first > 0 and parts[first - 1].inside is not None:
            first -= 1
        self.run_worker(self._colour_block(parts[first:end]), group="lexing")

    async def _colour_block(self, parts: list[AnswerPart]) -> None:
        found = await block_tokens(parts[0].inside.lexer, [part.code() for part in parts])
        for part, tokens in zip(parts, found):
            if tokens is not None:
                part.use_tokens(tokens)


def flush_interval(tail_drawn_in: float) -> float:
    """Seconds until the next flush, after a tail that took ``tail_drawn_in`` to draw."""
    return min(MAX_FLUSH_INTERVAL_S, max(FLUSH_INTERVAL_S, tail_drawn_in / DRAW_SHARE))


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
        self._lock = asyncio.Lock()  # one write at a time, in order
        self._timer: Timer | None = None
        self._finished = False

    def add(self, text: str) -> None:
        self._pending.append(self._escapes.feed(text))
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is None:
            self._timer = self._owner.set_timer(flush_interval(self.view.tail_drawn_in),
                                                self.flush)

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
                await self.view.append(text)

    async def finish(self) -> None:
        """The answer is complete: draw what is left and stop streaming. (A flush the
        timer has yet to run then finds nothing left; stopping the timer instead could
        cancel a flush half-way and lose its text.)"""
        await self._mounted
        self._pending.append(self._escapes.flush())
        await self.flush()
        self._finished = True
        self.view.end_stream()
