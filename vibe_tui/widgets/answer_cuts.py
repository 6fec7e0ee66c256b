"""Where a Markdown answer can be cut into parts that, each drawn on its own, draw what
the whole answer draws.

A cut falls between two blocks (later text cannot change how the blocks before it
read) or, in a fenced code block, after a line of code: a long code block is the one
block a model streams for many seconds, and a tail that held all of it would be
highlighted again from its first line at every flush. A part that starts inside a code
block knows the block (``OpenBlock``). The part a block begins in ends with its fence
line and leaves out the block's (empty) lines; a part that goes on with a block ends
where the block closes, or after one of its lines, and then leaves out its bottom
padding (``Part.continued``).

A block inside a list item (its fence indented to the item's text) is cut the same way.
Its lines lose the fence's indent, a line indented less than the item's text ends the
item and the block with it, and it is drawn inside the item: ``OpenBlock.opening`` holds
the item's text up to the fence, which tells how the item draws its left edge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Finished blocks are moved out of the tail once they add up to this many characters:
# the tail, redrawn at each flush, stays short, and a long answer has few parts.
PART_CHARS = 800
# A fence: up to three spaces, three or more backticks or tildes, an info string.
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
# A blank line, then a line starting in the first column; or a line in the first column
# that starts a bullet item (or a rule, as `* * *`): a block ends before either, and Rich
# draws each bullet item alone. The end is that line's start.
_BOUNDARY = re.compile(r"\n[ \t]*\n(?=\S)|\n(?=[-*+] +\S)")
# A list item's first line: its marker and the spaces after it (its text's column); not a
# rule (as `* * *`).
_ITEM = re.compile(r"^(?! {0,3}([-*_])(?: *\1){2,} *$) {0,3}(?:[-*+]|\d{1,9}[.)]) {1,4}(?=\S)",
                   re.MULTILINE)
# A line that is not blank, and its indent.
_TEXT_LINE = re.compile(r"^ *(?=\S)", re.MULTILINE)


@dataclass(frozen=True)
class OpenBlock:
    """A fenced code block that an earlier part began and a later part goes on with."""

    fence: str  # its opening line, as "```python"
    # Of a block in a list item: the item's text up to and with the fence line, and the
    # column of the item's text (a line indented less ends the item).
    opening: str = ""
    column: int = 0

    @property
    def marker(self) -> str:
        return _FENCE.match(self.fence).group(2)

    @property
    def indent(self) -> int:
        """The spaces before its fence, which each of its lines loses (as many as it has)."""
        return len(_FENCE.match(self.fence).group(1))

    def context_after(self, closing_line: str) -> str:
        """What the part after the block is drawn after: the block without its lines."""
        if self.column:
            return self.opening + closing_line
        return _fences_only(self.marker)

    @property
    def lexer(self) -> str:
        """The lexer's name as Rich's Markdown takes it: the info string's first word."""
        return _FENCE.match(self.fence).group(3).strip().partition(" ")[0] or "text"


@dataclass(frozen=True)
class Part:
    markdown: str
    context: str = ""  # the block drawn before it, whose own rows are left out
    inside: OpenBlock | None = None  # the code block it starts in
    continued: bool = False  # its last code block goes on in the next part


@dataclass(frozen=True)
class _Scan:
    finished: int  # how much of the text is whole blocks or whole lines of code
    closing: int  # where the line that closes the block the text starts in begins
    closed_at: int  # and where it ends (0: that block is not closed in the text)
    open_block: OpenBlock | None  # the block left open at its end, when it may be cut


def _opens(fence: re.Match[str]) -> bool:
    return not (fence.group(2)[0] == "`" and "`" in fence.group(3))


def _closes(fence: re.Match[str], marker: str) -> bool:
    chars = fence.group(2)
    return chars[0] == marker[0] and len(chars) >= len(marker) and not fence.group(3).strip()


def _scan(text: str, inside: OpenBlock | None = None, cut_here: bool = False) -> _Scan:
    """``cut_here``: the text is a part cut where it ends, so a block begun in it is known
    to go on (its next line, beyond the text, showed it)."""
    finished = closing = closed_at = position = 0
    block = inside
    code_start: int | None = 0 if inside else None
    lines_from = 0  # where the open block's lines not yet checked for an outdent start
    for fence in [*_FENCE.finditer(text), None]:
        stop = fence.end() if fence else len(text)
        if block is not None and block.column:
            # The fence line too: one indented less ends the item, then opens a block.
            ended = _outdented(text, lines_from, stop, block.column)
            if ended is not None:  # the item ends, and the block with it
                if inside is not None and not closed_at:
                    closing = closed_at = ended
                block, code_start, position = None, None, ended
            lines_from = stop
        if fence is None:
            break
        if block is None:
            if not _opens(fence):
                continue
            # +1: the boundary's look-ahead may see the fence's first character.
            finished = _last_boundary(text, position, fence.start() + 1) or finished
            block = _opened(text, finished, position, fence)
            # Cut after the fence line once a line of code is there (beyond the text, when
            # it was cut there): a block with no line is drawn with an empty one, which a
            # part that goes on with it leaves out.
            has_code = cut_here and fence.end() < len(text) or _has_code(text, fence)
            # An indented fence outside a list item is not cut.
            cut_in = block.column or not block.indent
            code_start = fence.end() + 1 if has_code and cut_in else None
            lines_from = fence.end()
        elif _closes(fence, block.marker):
            if inside is not None and not closed_at and fence.end() < len(text):
                closing, closed_at = fence.start(), fence.end() + 1
            block, code_start, position = None, None, fence.end()
    if block is None:
        finished = _last_boundary(text, position, len(text)) or finished
        return _Scan(finished, closing, closed_at, None)
    if code_start is None:
        return _Scan(finished, closing, closed_at, None)
    if inside is not None and code_start == 0:  # the block goes on: cut after a line of it
        return _Scan(max(finished, _last_code_line_end(text, 0, block.column)), closing,
                     closed_at, inside)
    if block.column and not cut_here and not _goes_on(text, code_start, block.column):
        return _Scan(finished, closing, closed_at, None)
    # A block begun here is cut after its fence line: all its lines are then drawn by the
    # parts that go on with it, which can be coloured again when the block is whole.
    return _Scan(max(finished, code_start), closing, closed_at, block)


def _opened(text: str, start: int, after: int, fence: re.Match[str]) -> OpenBlock:
    """The block a fence opens; in a list item, with its item's text (from ``start``,
    where the Markdown block the fence is in begins). The item begins after ``after``
    (the end of the last block closed before the fence: an item is not in its code)."""
    indent = len(fence.group(1))
    items = list(_ITEM.finditer(text, max(start, after), fence.start())) if indent else []
    column = len(items[-1].group(0)) if items else 0
    if not column or not column <= indent < column + 4:
        return OpenBlock(fence.group(0))
    if _item_ended(text, text.index("\n", items[-1].end()) + 1, fence.start(), column):
        return OpenBlock(fence.group(0))
    # With the block before the item's (an item before it in the list: its numbering).
    before = _last_boundary(text, after, start) or min(after, start)
    return OpenBlock(fence.group(0), opening=text[before:fence.end() + 1], column=column)


def _item_ended(text: str, start: int, stop: int, column: int) -> bool:
    """Whether a line between ``start`` and ``stop`` ended the item whose text is at
    ``column``: one indented less, after a blank line (right after the item's text it may
    be a lazy line of its paragraph, which goes on with the item)."""
    for line in _TEXT_LINE.finditer(text, start, stop):
        if line.end() - line.start() < column:
            previous = text.rfind("\n", 0, line.start() - 1)
            if not text[previous + 1:line.start() - 1].strip():
                return True
    return False


def _has_code(text: str, fence: re.Match[str]) -> bool:
    """Whether a whole line of code that is not blank follows the fence line (not the
    block's closing fence)."""
    line = _TEXT_LINE.search(text, fence.end() + 1)
    if line is None or text.find("\n", line.end()) < 0:
        return False
    closing = _FENCE.match(text, line.start())
    return closing is None or not _closes(closing, fence.group(2))


def _outdented(text: str, start: int, stop: int, column: int) -> int | None:
    """Where the first line from ``start`` that is not blank and is indented less than
    ``column`` begins, before ``stop``."""
    for line in _TEXT_LINE.finditer(text, start, stop):
        if line.end() - line.start() < column:
            return line.start()
    return None


def _indent_at(text: str, start: int) -> int | None:
    """The indent of the line that begins at ``start``; None while it is blank."""
    line = _TEXT_LINE.match(text, start)
    return None if line is None else line.end() - line.start()


def _ends_item(text: str, start: int, column: int) -> bool:
    indent = _indent_at(text, start)
    return indent is not None and indent < column


def _goes_on(text: str, start: int, column: int) -> bool:
    """Whether the line that begins at ``start`` shows a block in a list item goes on: it
    has begun, indented to the item's text. (A part that ended just before the line that
    ends the item would have been drawn without the block's bottom padding.)"""
    indent = _indent_at(text, start)
    return indent is not None and indent >= column


def _last_boundary(text: str, start: int, stop: int) -> int:
    last = 0
    for boundary in _BOUNDARY.finditer(text, start, stop):
        last = boundary.end()
    return last


def _last_code_line_end(text: str, start: int, column: int = 0) -> int:
    """The end of the last whole line of code from ``start`` that is not blank (Rich
    strips a block's trailing blank lines: a part must not end with them). In a list
    item, the next line must show the block goes on."""
    end = text.rfind("\n", start)
    while end >= start:
        begin = max(text.rfind("\n", start, end) + 1, start)
        if text[begin:end].strip() and (not column or _goes_on(text, end + 1, column)):
            return end + 1
        end = begin - 1
    return 0


def finished_length(text: str) -> int:
    """How much of ``text`` is whole Markdown blocks: up to the start of its last line
    outside a code fence that starts in the first column and follows a blank line (or
    starts a bullet item), or, when it ends in a first-column block left open, to the end
    of that block's fence line (0 when there is none).
    Later text cannot change how the part before reads; an indented line may still
    continue a list item, so it is not a boundary."""
    return _scan(text).finished


def cut_point(text: str, inside: OpenBlock | None, window: int | None = None) -> int:
    """Where the part of ``text`` (which starts in ``inside``, if given) may end: past
    PART_CHARS at the last cut (within ``window`` first), and at the latest where the
    block it starts in closes: a part that goes on with a block ends with it."""
    scan = _scan(text, inside)
    if scan.closed_at:
        stop = min(scan.closing, window or scan.closing)
        within = _scan(text[:stop], inside).finished if scan.closing > PART_CHARS else 0
        return within or scan.closed_at
    if len(text) <= PART_CHARS:
        return 0
    if window is not None and len(text) > window:
        return _scan(text[:window], inside).finished or scan.finished
    return scan.finished


def following(text: str, cut: int, inside: OpenBlock | None,
              context: str = "") -> tuple[OpenBlock | None, str]:
    """What the part after ``text[:cut]`` (a part that starts in ``inside``, drawn after
    ``context``) starts in, and the context it is drawn after."""
    markdown = text[:cut]
    scan = _scan(markdown, inside, cut_here=True)
    block = scan.open_block
    if block is not None:
        if block.column and _ends_item(text, cut, block.column):
            return None, block.opening  # the next line ends the item, and the block
        return block, ""
    if inside is not None and scan.closed_at:
        return None, inside.context_after(markdown[scan.closing:scan.closed_at])
    # A part with no boundary of its own goes on with the block its context ends with (a
    # list item whose code block it ended): the list's numbering needs that item.
    return None, last_block(markdown if scan.finished else context + markdown)


def split_parts(markdown: str) -> list[Part]:
    """``markdown`` cut into parts of about PART_CHARS characters or more; the last part
    holds the rest, finished or not."""
    parts: list[Part] = []
    rest, context, inside = markdown, "", None
    while cut := cut_point(rest, inside, window=2 * PART_CHARS):
        after, after_context = following(rest, cut, inside, context)
        piece, rest = rest[:cut], rest[cut:]
        parts.append(Part(piece, context, inside, continued=after is not None))
        inside, context = after, after_context
    parts.append(Part(rest, context, inside))
    return parts


def last_block(markdown: str) -> str:
    """The last Markdown block of a part (a part ends where a block does), to draw the
    next part after. Of a code block only its fences: what follows a code block does not
    depend on its lines, which need not be highlighted again at every flush of the tail."""
    block = markdown[finished_length(markdown):]
    fence = _FENCE.match(block)
    return _fences_only(fence.group(2)) if fence else block


def _fences_only(marker: str) -> str:
    return f"{marker}\n{marker}\n\n"


def code_of(markdown: str, block: OpenBlock) -> str:
    """The code of a part that starts in ``block``: up to its closing fence, if any, each
    line without the fence's indent."""
    for fence in _FENCE.finditer(markdown):
        if _closes(fence, block.marker):
            markdown = markdown[:fence.start()]
            break
    if not block.indent:
        return markdown
    lines = markdown.splitlines(keepends=True)
    return "".join(line[min(block.indent, len(line) - len(line.lstrip(" "))):]
                   for line in lines)
