"""The lines of a long code block that a part of an answer goes on with (see
``answer_cuts``), drawn as Rich's Markdown draws the whole block.

A part is highlighted at once from its own first line: cheap, and right unless a string
or comment crosses its edges. Once the block is whole (closed, or the answer ended), its
code is lexed again as one, a few milliseconds at a time, so the keys never wait behind
a long block; only a part whose colours change that way is drawn again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from functools import lru_cache
from itertools import accumulate

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown
from rich.segment import Segment
from rich.syntax import Syntax

from vibe_tui.widgets.answer_cuts import OpenBlock, code_of

CODE_THEME = "monokai"
TAB_SIZE = 4  # Syntax's default, as Rich's Markdown leaves it
SLICE_S = 0.002  # lexing gives the event loop back this often
EDGE_PROBE = "x"  # the line of code drawn to find a list item's left edge

Tokens = tuple[tuple[object, str], ...]


@lru_cache(maxsize=32)
def lexer_named(name: str) -> Lexer | None:
    """A lexer made as Rich's ``Syntax`` makes one (it would make one per drawing)."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return None


class _GivenTokens(Lexer):
    """Hands Rich's ``Syntax`` a part's share of its whole block's tokens."""

    def __init__(self, tokens: Tokens, fallback: Lexer) -> None:
        super().__init__(stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
        self.tokens = tokens
        self.fallback = fallback

    def get_tokens(self, text: str, unfiltered: bool = False) -> Iterator[tuple[object, str]]:
        if "".join(value for _, value in self.tokens) == text:
            return iter(self.tokens)
        return self.fallback.get_tokens(text)


def part_code(markdown: str, block: OpenBlock, continued: bool) -> str:
    """The code a part draws, as Rich's ``Syntax`` will be given it: Rich strips a whole
    block's trailing blank lines; a part that goes on ends with one line's end, which
    ``Syntax`` would draw as one more blank line."""
    own = code_of(markdown, block)
    return own.removesuffix("\n") if continued else own.rstrip()


def _processed(code: str) -> str:
    """The code as ``Syntax`` lexes it."""
    return (code if code.endswith("\n") else code + "\n").expandtabs(TAB_SIZE)


def draw_code(console: Console, options: ConsoleOptions, block: OpenBlock, code: str,
              continued: bool, tokens: Tokens | None) -> list[list[Segment]]:
    """A part's lines of a block: its top padding left out (the block began above), and
    its bottom padding when the block goes on in the next part. A block in a list item
    is drawn narrower, each line after the item's left edge."""
    edge, edge_width = _left_edge(console, block, options.max_width) if block.column else ([], 0)
    lexer = lexer_named(block.lexer)
    if tokens is not None and lexer is not None:
        lexer = _GivenTokens(tokens, lexer)
    # No code: the part holds only the block's end, and draws its bottom padding alone.
    syntax = Syntax(code, lexer or "text", theme=CODE_THEME, word_wrap=True, padding=1,
                    line_range=None if code else (2, None))
    lines = console.render_lines(syntax, options.update_width(options.max_width - edge_width),
                                 pad=False)[1:]
    lines = lines[:-1] if continued else lines
    return [[*edge, *line] for line in lines] if edge else lines


@lru_cache(maxsize=16)
def _left_edge(console: Console, block: OpenBlock, width: int) -> tuple[list[Segment], int]:
    """What Rich draws left of a block's lines in its list item (the item's padding), and
    its width: found on a line of code, drawn after the item's text."""
    blank = " " * block.indent
    probe = f"{block.opening}{blank}{EDGE_PROBE}\n{blank}{block.marker}\n"
    lines = console.render_lines(Markdown(probe, code_theme=CODE_THEME),
                                 console.options.update_width(width), pad=False)
    for line in reversed(lines):
        text = "".join(segment.text for segment in line)
        if text.strip() == EDGE_PROBE:
            # Less the block's own padding, one column.
            edge_width = max(0, text.index(EDGE_PROBE) - 1)
            return next(iter(Segment.divide(line, [edge_width]))), edge_width
    return [], 0


async def block_tokens(lexer_name: str, codes: list[str]) -> list[Tokens | None]:
    """For each part of one block (its code as ``part_code`` gives it), its tokens lexed
    within the whole block, or None where they colour it as its own lexing does. A part
    lexed alone misses a string or comment begun before it, and one that a later part
    closes (Pygments matches some comments whole: unclosed, they lex otherwise). Lexing
    gives the event loop back every SLICE_S."""
    texts = [_processed(code) if code else "" for code in codes]
    lexer = lexer_named(lexer_name)
    if lexer is None or len(texts) < 2:
        return [None] * len(texts)
    ends = list(accumulate(len(text) for text in texts))
    per_part: list[list[tuple[object, str]]] = [[] for _ in texts]
    index = position = 0
    slice_started = time.perf_counter()
    for count, (token_type, value) in enumerate(lexer.get_tokens("".join(texts))):
        while value:
            while index < len(ends) - 1 and position >= ends[index]:
                index += 1
            taken = value[:ends[index] - position] or value
            per_part[index].append((token_type, taken))
            position += len(taken)
            value = value[len(taken):]
        if count % 64 == 0 and time.perf_counter() - slice_started > SLICE_S:
            await asyncio.sleep(0)
            slice_started = time.perf_counter()
    if position != ends[-1]:
        return [None] * len(texts)  # the lexer changed the text (a carriage return)
    found: list[Tokens | None] = []
    for text, tokens in zip(texts, per_part):
        alone = tuple(lexer.get_tokens(text)) if text else ()
        found.append(None if _same(tokens, alone) else tuple(tokens))
        await asyncio.sleep(0)
    return found


def _same(tokens: list[tuple[object, str]], others: Tokens) -> bool:
    """Whether two token lists colour each character alike (their splits may differ)."""
    def per_character(pairs) -> list[object]:
        return [token_type for token_type, value in pairs for _ in value]
    return per_character(tokens) == per_character(others)
