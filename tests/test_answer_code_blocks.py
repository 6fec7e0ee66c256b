"""A long code block in an answer: drawn in parts, each part a run of its lines, that draw
what Rich draws for the whole answer; while it streams, the tail redrawn at each flush
stays short."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment

from app_helpers import OneWidget
from vibe_tui.widgets.answer import CODE_THEME, AnswerPart, AnswerView
from vibe_tui.widgets.answer_cuts import PART_CHARS, cut_point, following, split_parts

DOCSTRING = 'def f():\n    """What f does,\n' + "".join(
    f"    line {i} of its docstring, which runs on for a while\n" for i in range(60)) + '    """\n'
STATEMENTS = "".join(f"x_{i} = {i}  # {'word ' * (i % 25)}\n" for i in range(200))
# Unclosed, JavaScript's /* lexes as an error and the lines below it as code.
LICENCE = "/*\n" + " * a line of the licence, one of many\n" * 150 + " */\n"
BLOCK = DOCSTRING + "    return 1\n\n\n" + STATEMENTS + "```python\nnot_a_fence = True\n\n\n"

def indented(code: str, spaces: int) -> str:
    """Code as a list item holds it: each line that is not blank indented."""
    return "".join(" " * spaces + line if line.strip() else line
                   for line in code.splitlines(keepends=True))


ANSWERS = {
    "closed, then prose and a tilde block": (
        f"Intro.\n\n```python\n{BLOCK}```\nAfter the code.\n\n- a list\n\n"
        f"~~~~\n{BLOCK}~~~~\n\nEnd.\n"),
    "never closed": f"Intro.\n\n```python\n{BLOCK}",
    "closed at the very end, no newline": f"```\n{BLOCK}```",
    "only blank lines before its fence": "```\n" + "word\n" * 2000 + "\n\n\n```\n\nafter\n",
    "indented fence, not cut": f"Intro.\n\n  ```python\n{BLOCK}  ```\n\nEnd\n",
    "a comment Pygments matches whole": f"```js\n{LICENCE}let x = 1;\n```\n",
    "a longer fence around a shorter": f"````markdown\n{BLOCK}```\n{BLOCK}````\n\nafter\n",
    "a backtick in the info string: not a fence, not cut": f"```a`b\n{BLOCK}```\n\ntext\n",
    "closing fence with spaces, blocks back to back":
        f"```python\n{BLOCK}```   \n```js\n{LICENCE}```\nno blank line\n",
    "an unknown language": f"```nosuchlanguage\n{BLOCK}```\n",
    "code in a list item at the first column, not cut (it ends the item)":
        "- item\n\n   ```python\n" + BLOCK.replace("\n", "\n   ") + "```\n",
    "in a numbered item, then the list goes on": (
        f"Steps:\n\n1. Write it:\n\n   ```python\n{indented(BLOCK, 3)}   ```\n\n2. Run it.\n"),
    "in a tight bullet item, with text after it in the item": (
        f"- Write it:\n  ```python\n{indented(BLOCK, 2)}  ```\n  Then run it.\n- next\n"),
    "a fence indented past the item's text": (
        f"- Write it:\n\n   ~~~\n{indented(LICENCE, 3)}   ~~~\n\nEnd.\n"),
    "in an item, closed at the first column (which ends the item)": (
        f"1. Write it:\n   ```js\n{indented(LICENCE, 3)}```\nlet y = 2;\n"),
    "items apart, each with a block, more text after the second's": (
        f"* One\n  ```python\n{indented(STATEMENTS, 2)}  ```\n\n* Two\n  ```python\n"
        f"{indented(STATEMENTS, 2)}  ```\n  More of two.\n\nAfter.\n"),
    "an item's line in a block, then a fence indented outside any item, not cut": (
        f"```\n- not an item\n  ```\n  ```python\n{indented(STATEMENTS, 2)}x = 0\n  ```\n"),
    "a rule, then a fence indented outside any item, not cut": (
        f"* * *\n  ```python\n{indented(STATEMENTS, 2)}x = 0\n  ```\n"),
    "a block with no line yet, at the end, not cut": f"{'Words. ' * 300}\n\n```python\n\n",
    "in an item, after lines that go on its paragraph": (
        f"- item\n| a | b |\n|---|---|\n| 1 | 2 |\n  ```python\n{indented(STATEMENTS, 2)}"
        f"x = 0\n{indented(STATEMENTS, 2)}  ```\n\nEnd.\n"),
    "after an item ended by a line indented less, not cut": (
        f"1. item\n\n  two spaces\n   ```python\n{indented(STATEMENTS, 3)}x = 0\n"
        f"{indented(STATEMENTS, 3)}   ```\n\nEnd.\n"),
    "in an item, ended by a line at the first column": (
        f"1. Write it:\n   ```python\n{indented(STATEMENTS, 3)}Then prose.\n\nMore.\n"),
    "in a quote, not cut": "> ```\n" + "".join(f"> {line}\n" for line in BLOCK.splitlines()),
}


async def drawn_in_parts(view: AnswerView, console: Console) -> list[list[Segment]]:
    """The view's parts drawn at the console's width, once each part's lines are lexed
    after the code before them."""
    app = OneWidget(view)
    async with app.run_test(size=(console.width + 4, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        return drawn_now(view, console)


def drawn_now(view: AnswerView, console: Console) -> list[list[Segment]]:
    parts = list(view.query(AnswerPart))
    return [line for part in parts for line in part.lines_for(console, console.options)]


def drawn_whole(text: str, console: Console) -> list[list[Segment]]:
    return console.render_lines(Markdown(text, code_theme=CODE_THEME), console.options, pad=False)


def cells(lines: list[list[Segment]]) -> list[list[Segment]]:
    """Lines as their text and styles: runs of one style joined, as a terminal shows them."""
    return [list(Segment.simplify(line)) for line in lines]


async def test_long_code_blocks_are_drawn_in_parts_as_rich_draws_them_whole():
    """Colours included: a part is highlighted after the code before it, so a docstring
    cut across two parts is a string in both."""
    console = Console(width=70, color_system="truecolor", file=io.StringIO())
    for name, text in ANSWERS.items():
        parts = split_parts(text)
        assert "".join(part.markdown for part in parts) == text, name
        if "not cut" not in name:
            assert sum(part.inside is not None for part in parts) >= 5, name
        drawn = await drawn_in_parts(AnswerView(text), console)
        assert cells(drawn) == cells(drawn_whole(text, console)), name


def test_a_part_in_a_code_block_ends_where_the_block_closes():
    text = "line\n" * 10 + "```\n\nAfter.\n"
    opened = "```python\nfirst\n"
    block = following(opened, len(opened), None)[0]
    assert block is not None and block.lexer == "python"
    assert cut_point(text, block) == text.index("```\n") + 4
    inside, context = following(text, cut_point(text, block), block)
    assert inside is None and context == "```\n```\n\n"


@pytest.mark.parametrize("text", [
    f"Here is the module.\n\n```python\n{DOCSTRING}    return 1\n\n{STATEMENTS}```\n\nDone.\n",
    f"The script:\n\n```js\n{LICENCE}let x = 1;\n```\n\nDone.\n",
    f"Steps:\n\n1. Write it:\n\n   ```python\n{indented(DOCSTRING + STATEMENTS, 3)}   ```\n\n"
    "2. Run it.\n\nDone.\n",
    f"- Write it:\n  ```python\n{indented(STATEMENTS, 2)}Then prose.\n\nDone.\n",
], ids=["docstring", "comment", "in a list item", "in a list item, ended by prose"])
async def test_a_streaming_code_block_leaves_a_short_tail_and_draws_what_the_text_draws(text):
    """Streamed a few lines at a time, the tail (drawn again at each flush) stays short,
    its parts draw the lines the text so far draws at once (the tail is highlighted
    alone), and when the stream ends they draw the whole answer, colours included."""
    chunks = [text[i:i + 150] for i in range(0, len(text), 150)]
    streamed = OneWidget(AnswerView(streaming=True))
    console = Console(width=60, color_system="truecolor", file=io.StringIO())
    tails: list[int] = []
    async with streamed.run_test(size=(70, 30)) as pilot:
        for count, chunk in enumerate(chunks, 1):
            await streamed.view.append(chunk)
            tails.append(len(list(streamed.view.query(AnswerPart))[-1].markdown))
            drawn = drawn_now(streamed.view, console)
            so_far = drawn_whole("".join(chunks[:count]), console)
            assert texts(drawn) == texts(so_far), f"after {count} flushes"
        streamed.view.end_stream()
        await streamed.workers.wait_for_complete()
        await pilot.pause()
        parts = list(streamed.view.query(AnswerPart))
        drawn = drawn_now(streamed.view, console)
    assert max(tails) <= PART_CHARS + 150, tails
    assert len(parts) > 5
    assert cells(drawn) == cells(drawn_whole(text, console))


def texts(lines: list[list[Segment]]) -> list[str]:
    return ["".join(segment.text for segment in line).rstrip() for line in lines]

