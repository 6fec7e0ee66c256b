"""A long bullet list whose items have no blank line between them: cut into parts before
an item in the first column (Rich draws each bullet item alone), so the tail redrawn at
each flush stays short, and the parts draw what Rich draws for the whole answer."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from app_helpers import OneWidget
from test_answer_code_blocks import cells, drawn_in_parts, drawn_now, drawn_whole, texts
from vibe_tui.widgets.answer import AnswerPart, AnswerView
from vibe_tui.widgets.answer_cuts import PART_CHARS, split_parts

ITEMS = "".join(f"- `src/module_{n}.py`: step {n}, {'and more words ' * (n % 7)}\n"
                for n in range(120))

LISTS = {
    "after a paragraph, then one": f"Files:\n{ITEMS}\nDone.\n",
    "items with items of their own": "".join(
        f"- item {n}\n  - its first part, in words\n  - its second\n" for n in range(80)),
    "lines that go on an item's paragraph": "".join(
        f"* item {n} in words\nwhich goes on here {n}\n" for n in range(120)),
    "another bullet starts another list": "".join(
        f"{'-' if n % 10 < 5 else '+'} item {n} {'word ' * 20}\n" for n in range(100)),
    "asterisks in a row are a rule, not an item": "".join(
        f"- item {n} {'word ' * 30}\n" + ("* * *\n" if n % 9 == 0 else "") for n in range(100)),
    "a code block right after": f"{ITEMS}```python\nx = 1\n```\n",
    "a numbered list before": "".join(f"{n}. step {n} {'word ' * 20}\n" for n in range(1, 6))
                              + ITEMS,
}


@pytest.mark.parametrize("name", LISTS)
async def test_a_list_without_blank_lines_is_drawn_in_parts_as_rich_draws_it_whole(name):
    text = LISTS[name]
    console = Console(width=60, color_system="truecolor", file=io.StringIO())
    parts = split_parts(text)
    assert "".join(part.markdown for part in parts) == text
    assert len(parts) >= 3
    assert max(len(part.markdown) for part in parts) <= 2 * PART_CHARS
    drawn = await drawn_in_parts(AnswerView(text), console)
    assert cells(drawn) == cells(drawn_whole(text, console))


async def test_a_streaming_list_leaves_a_short_tail_and_draws_what_the_text_draws():
    text = LISTS["after a paragraph, then one"]
    chunks = [text[i:i + 120] for i in range(0, len(text), 120)]
    streamed = OneWidget(AnswerView(streaming=True))
    console = Console(width=60, color_system="truecolor", file=io.StringIO())
    tails: list[int] = []
    async with streamed.run_test(size=(70, 30)):
        for count, chunk in enumerate(chunks, 1):
            await streamed.view.append(chunk)
            tails.append(len(list(streamed.view.query(AnswerPart))[-1].markdown))
            so_far = drawn_whole("".join(chunks[:count]), console)
            assert texts(drawn_now(streamed.view, console)) == texts(so_far), count
        streamed.view.end_stream()
        drawn = drawn_now(streamed.view, console)
    assert max(tails) <= PART_CHARS + 120 + 100, tails  # a part ends before an item
    assert cells(drawn) == cells(drawn_whole(text, console))
