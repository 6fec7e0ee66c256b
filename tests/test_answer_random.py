"""Answers put together at random from the blocks models write (paragraphs, bullet and
numbered lists, nested items, code blocks in the first column and inside list items,
headings, quotes, rules, tables), cut into parts as a stream would be: each answer's parts
draw what Rich draws for the whole answer, colours included."""

from __future__ import annotations

import io
import random

from rich.console import Console

from test_answer_code_blocks import cells, drawn_whole
from vibe_tui.widgets.answer import AnswerView

# Seed 558 is one this generator found: the part after the one that ends a list item's code
# block is drawn after that item (its list's numbering and spacing need it).
SEEDS = [*range(200), 558]
WORDS = ("alpha", "beta", "`gamma`", "**delta**", "eps")


class RandomAnswer:
    """One answer's blocks, drawn from ``seed``; a numbered item goes on from the one before."""

    def __init__(self, seed: int) -> None:
        self.pick = random.Random(seed)
        self.number = 0

    def text(self) -> str:
        return "\n".join(self.block() for _ in range(self.pick.randint(3, 25)))

    def words(self) -> str:
        return " ".join(self.pick.choice(WORDS) for _ in range(self.pick.randint(3, 40)))

    def code(self, indent: int) -> str:
        return "".join(f"{' ' * indent}x_{n} = {n}{' word' * self.pick.randint(0, 12)}\n"
                       if self.pick.random() > 0.1 else "\n"
                       for n in range(self.pick.randint(1, 60)))

    def block(self) -> str:
        kind = self.pick.randint(0, 8)
        if kind != 3:
            self.number = 0
        if kind == 0:
            return f"{self.words()}\n"
        if kind == 1:
            return "".join(f"- {self.words()}\n" for _ in range(self.pick.randint(1, 12)))
        if kind == 2:
            return f"```python\n{self.code(0)}```\n"
        if kind == 3:
            return self.item_with_code()
        if kind == 4:
            return f"## {self.words()[:30]}\n"
        if kind == 5:
            return f"> {self.words()}\n"
        if kind == 6:
            return f"- a\n  - {self.words()}\n  - b\n"
        if kind == 7:
            return "* * *\n"
        rows = "".join(f"| {n} | {self.words()[:20]} |\n" for n in range(self.pick.randint(1, 8)))
        return f"| a | b |\n|---|---|\n{rows}"

    def item_with_code(self) -> str:
        marker = self.pick.choice(["- ", "* ", "#. "])
        if marker == "#. ":
            self.number += 1
            marker = f"{self.number}. "
        else:
            self.number = 0
        column = len(marker)
        fence = " " * (column + self.pick.choice([0, 0, 1]))
        gap = "\n" if self.pick.random() < 0.5 else ""
        after = f"{' ' * column}{self.words()}\n" if self.pick.random() < 0.3 else ""
        code = self.code(len(fence) + self.pick.choice([0, 0, 2]))
        return f"{marker}{self.words()}\n{gap}{fence}```python\n{code}{fence}```\n{after}"


def test_random_answers_drawn_in_parts_draw_what_rich_draws_whole():
    console = Console(width=50, color_system="truecolor", file=io.StringIO())
    differ = []
    for seed in SEEDS:
        text = RandomAnswer(seed).text()
        parts = list(AnswerView(text).compose())
        assert "".join(part.markdown for part in parts) == text, seed
        drawn = [line for part in parts for line in part.lines_for(console, console.options)]
        if cells(drawn) != cells(drawn_whole(text, console)):
            differ.append(seed)
    assert not differ, f"answers drawn otherwise in parts: seeds {differ}"
