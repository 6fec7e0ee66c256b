"""The lines of a long code block that a part of an answer goes on with (see
``answer_cuts``), drawn as Rich's Markdown draws the whole block.

A part is highlighted at once from its own first line: cheap, and right unless the part
starts inside a string or comment that began before it. Its lines are then lexed again
after the block's code before them, a few milliseconds at a time, so the keys never wait
behind a long block; only a part whose colours change that way is drawn again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.syntax import Syntax

from vibe_tui.widgets.answer_cuts import OpenBlock, code_of

CODE_THEME = "monokai"
TAB_SIZE = 4  # Syntax's default, as Rich's Markdown leaves it
# The lexer reads at most this much of the block before a part (whole lines), to know
# the state the part starts in: a string or comment longer than this is not followed.
LEXER_CONTEXT_CHARS = 32_000
SLICE_S = 0.002  # lexing gives the event loop back this often

Tokens = tuple[tuple[object, str], ...]


@lru_cache(maxsize=32)
def lexer_named(name: str) -> Lexer | None:
    """A lexer made as Rich's ``Syntax`` makes one (it would make one per drawing)."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return None


class _GivenTokens(Lexer):
    """Hands Rich's ``Syntax`` the tokens of a part lexed after the code before it."""

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
    own, _closed = code_of(markdown, block)
    return own.removesuffix("\n") if continued else own.rstrip()


def _processed(code: str) -> str:
    """The code as ``Syntax`` lexes it."""
    return (code if code.endswith("\n") else code + "\n").expandtabs(TAB_SIZE)


def draw_code(console: Console, options: ConsoleOptions, block: OpenBlock, code: str,
              continued: bool, tokens: Tokens | None) -> list[list[Segment]]:
    """A part's lines of a block: its top padding left out (the block began above), and
    its bottom padding when the block goes on in the next part."""
    lexer = lexer_named(block.lexer)
    if tokens is not None and lexer is not None:
        lexer = _GivenTokens(tokens, lexer)
    # No code: the part holds only the block's end, and draws its bottom padding alone.
    syntax = Syntax(code, lexer or "text", theme=CODE_THEME, word_wrap=True, padding=1,
                    line_range=None if code else (2, None))
    lines = console.render_lines(syntax, options, pad=False)[1:]
    return lines[:-1] if continued else lines


async def tokens_after_context(block: OpenBlock, code: str) -> Tokens | None:
    """The tokens of ``code`` lexed after the block's code before it, when they differ
    from its tokens lexed alone (None when they do not, or the block has no lexer).
    Lexing yields to the event loop every SLICE_S."""
    lexer = lexer_named(block.lexer)
    before = _processed(block.code_before(LEXER_CONTEXT_CHARS)) if block.code else ""
    if lexer is None or not before.strip() or not code:
        return None
    text = _processed(code)
    tokens: list[tuple[object, str]] = []
    skip = len(before)
    slice_started = time.perf_counter()
    for count, (token_type, value) in enumerate(lexer.get_tokens(before + text)):
        if skip >= len(value):
            skip -= len(value)
        else:
            tokens.append((token_type, value[skip:]))
            skip = 0
        if count % 64 == 0 and time.perf_counter() - slice_started > SLICE_S:
            await asyncio.sleep(0)
            slice_started = time.perf_counter()
    alone = tuple(lexer.get_tokens(text))
    return None if _same(tokens, alone) else tuple(tokens)


def _same(tokens: list[tuple[object, str]], others: Tokens) -> bool:
    """Whether two token lists colour each character alike (their splits may differ)."""
    def per_character(pairs) -> list[object]:
        return [token_type for token_type, value in pairs for _ in value]
    return per_character(tokens) == per_character(others)
