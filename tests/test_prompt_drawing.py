"""The prompt box draws in the colours of the theme in force after a theme change (it
applies its theme's CSS again only when the theme, its styles or its state change), and a
key repaints only the cells it changed, so the terminal shows what a full repaint would."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pyte
import pytest
from rich.console import Console
from textual.app import App
from textual.color import Color

from vibe_tui.widgets.prompt_input import CompletionList, PromptInput


class PromptAlone(App):
    def compose(self):
        yield CompletionList()
        yield PromptInput(Path("."), [])


def backgrounds(prompt: PromptInput) -> list[Color]:
    """The background of each cell of the prompt's first line."""
    cells = []
    for segment in prompt.render_line(0):
        background = segment.style.bgcolor if segment.style else None
        cells += [Color.from_rich_color(background) if background else None] * len(segment.text)
    return cells


async def test_the_prompt_follows_a_theme_change():
    """A theme change replaces the prompt's theme object; drawn with the old one's CSS
    never applied to the new one, the cursor went and the text kept the old colours."""
    app = PromptAlone()
    async with app.run_test(size=(60, 10)) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("h", "i")
        dark = backgrounds(prompt)
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.press("!")
        light = backgrounds(prompt)
        text, cursor = light[0], light[3]
        assert text != dark[0] and text == Color.parse(app.current_theme.background)
        assert cursor is not None and cursor != text


# ---- a key repaints only the cells it changed ---------------------------------------------

class Terminal:
    """What a terminal shows after the app's frames: each frame's bytes fed to an emulator."""

    def __init__(self, app: App) -> None:
        width, height = app.size
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)
        self.frames: list[str] = []
        self.console = truecolor(app)

    def show(self, screen, update) -> None:
        if update is None:
            return
        data = update.render_segments(self.console)
        self.frames.append(data)
        self.stream.feed(data)

    def cells(self) -> list[list[tuple]]:
        return cells_of(self.screen)


def truecolor(app: App) -> Console:
    """A console that writes every colour as it is (the test app's own may map them to 16)."""
    return Console(color_system="truecolor", force_terminal=True, width=app.size.width,
                   file=io.StringIO())


def cells_of(screen: pyte.Screen) -> list[list[tuple]]:
    return [[(char.data, char.fg, char.bg, char.bold, char.italics, char.underscore,
              char.reverse) for char in (screen.buffer[y][x] for x in range(screen.columns))]
            for y in range(screen.lines)]


async def drawn_whole(pilot, prompt: PromptInput, terminal: Terminal) -> list[list[tuple]]:
    """The screen once the prompt is repainted whole (its cached lines dropped)."""
    prompt.refresh()
    await pilot.pause()
    return terminal.cells()


def rows_written(frame: str) -> set[int]:
    return {int(row) for row in re.findall(r"\x1b\[(\d+);\d+H", frame)}


@pytest.fixture
async def watched_prompt():
    app = PromptAlone()
    async with app.run_test(size=(40, 16)) as pilot:
        terminal = Terminal(app)
        app._display = terminal.show  # the headless driver writes nothing; keep what it would
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False  # a blink repaints the cursor's row whole: it would hide misses
        prompt.focus()
        prompt.refresh()
        await pilot.pause()
        yield app, pilot, prompt, terminal


async def test_what_the_terminal_shows_matches_a_full_repaint_after_each_edit(watched_prompt):
    app, pilot, prompt, terminal = watched_prompt

    async def check(*keys: str, text: str | None = None) -> None:
        if keys:
            await pilot.press(*keys)
        if text is not None:
            prompt.insert(text)
        await pilot.pause()
        shown = terminal.cells()
        assert shown == await drawn_whole(pilot, prompt, terminal), (keys, text, prompt.text)

    await check("a")  # the placeholder gives way to text
    await check("backspace")  # and comes back
    await check("h", "e", "l", "l", "o")
    await check("left", "left", "X")  # typed in the middle: the rest of the line moves
    await check("end", "(", "a", ")")
    await check("left", "left", "left")  # the cursor on a bracket lights its pair
    await check("end")  # and the pair goes dark again
    await check("shift+enter", text="a line long enough to wrap past the prompt's width")
    await check("up", "up")
    await check("end", "backspace", "backspace")
    await check("shift+left", "shift+left", "shift+left")  # a selection is drawn
    await check("Z")  # and replaced
    await check(text="漢字 and é: wide and accented")
    await check(text="".join(f"\nline {n}" for n in range(15)))  # taller than the box: it scrolls
    await check("up", "up", "up", "up", "up", "up", "up", "up", "up", "up", "up", "up")
    await check("ctrl+a")
    prompt.clear()
    await check()  # empty again: the placeholder comes back
    await check("a", "b", "c")
    app.theme = "textual-light"  # the whole prompt repaints in the new colours
    await check("d")
    terminal.screen.resize(16, 30)
    await pilot.resize_terminal(30, 16)  # narrower: the line wraps anew
    await check(text=" a few more words to wrap at the new width")
    await check("backspace", "backspace", "home", "x")


async def test_a_key_at_the_end_of_a_line_repaints_only_that_row(watched_prompt):
    app, pilot, prompt, terminal = watched_prompt
    await pilot.press("h", "i")
    await pilot.pause()
    row = prompt.region.y + 1 + prompt.cursor_location[0]  # below the border, 1-based
    terminal.frames.clear()
    await pilot.press("!")
    await pilot.pause()
    frames = [frame for frame in terminal.frames if frame.strip("\x1b[0123456789;H")]
    assert frames and all(rows_written(frame) == {row + 1} for frame in frames), frames
    shown = terminal.cells()
    assert shown == await drawn_whole(pilot, prompt, terminal)
