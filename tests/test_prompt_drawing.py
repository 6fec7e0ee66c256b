"""The prompt box draws in the colours of the theme in force after a theme change (it
applies its theme's CSS again only when the theme, its styles or its state change)."""

from __future__ import annotations

from pathlib import Path

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
