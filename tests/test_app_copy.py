"""Copying with the keyboard: /copy for an answer or a code block, `c` on a tool call or
its timeline row. What reached the clipboard is checked, and the file kept beside the
session for terminals that ignore the OSC 52 clipboard sequence."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    events_of,
    litellm_loaded,
    make_app,
    no_key_grace,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.core.copy_targets import code_blocks
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.widgets.conversation import Entry
from vibe_tui.widgets.timeline_item import ToolCallItem

ANSWER = ("Two ways:\n\n```python\nprint('one')\nprint('two')\n```\n\n"
          "or in the shell:\n\n~~~sh\necho three\n~~~\n\nDone.")


def notices(app) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(".-notice")]


def saved_copy(app) -> str:
    return app.session.store_path.with_suffix(".copied.txt").read_text(encoding="utf-8")


async def test_copy_puts_the_answer_and_its_code_blocks_on_the_clipboard(fake_llm, tmp_path):
    fake_llm.push(text("an older answer"), text(ANSWER))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/copy")
        assert notices(app)[-1] == "no answer to copy yet"
        await submit(pilot, "first")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "second")
        await wait_turns_ended(pilot, app.session, 2)
        await submit(pilot, "/copy")
        await wait_for(pilot, lambda: app.clipboard == ANSWER, what="the answer copied")
        assert saved_copy(app) == ANSWER
        assert notices(app)[-1].startswith("copied the last answer (14 lines)")
        assert str(app.session.store_path.with_suffix(".copied.txt")) in notices(app)[-1]
        await submit(pilot, "/copy code")
        await wait_for(pilot, lambda: app.clipboard == "echo three", what="last code block")
        await submit(pilot, "/copy 1")
        await wait_for(pilot, lambda: app.clipboard == "print('one')\nprint('two')",
                       what="first code block")
        assert notices(app)[-1].startswith("copied code block 1 of 2 (2 lines)")
        await submit(pilot, "/copy 3")
        assert notices(app)[-1] == "the last answer has 2 code blocks: /copy 1 to /copy 2"
        await submit(pilot, "/copy everything")
        assert notices(app)[-1].startswith("/copy copies the last answer")
        assert app.clipboard == "print('one')\nprint('two')"  # a bad request copies nothing


async def test_copy_view_shows_the_text_alone_to_select(fake_llm, tmp_path):
    from textual.widgets import TextArea

    from vibe_tui.screens.copy_view import CopyView

    fake_llm.push(text(ANSWER))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "show me")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/copy code 1 view")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyView), what="the copy view")
        area = app.screen.query_one(TextArea)
        assert area.text == "print('one')\nprint('two')" and area.read_only
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CopyView), what="closed")
        assert app.clipboard == ""  # viewing copies nothing by itself
        assert app.focused is app.prompt


async def test_c_copies_a_tool_calls_output(fake_llm, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.py"})),
                  tool_calls(tool_call("list_dir", {"path": "."})), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "look")
        await wait_turns_ended(pilot, app.session)
        read, listed = [e.output for e in events_of(app.session, ev.ToolResult)]
        await submit(pilot, "/copy tool")
        await wait_for(pilot, lambda: app.clipboard == listed, what="last tool output")
        item = app.conversation.query(ToolCallItem).first()
        item.focus()
        await pilot.press("c")
        await wait_for(pilot, lambda: app.clipboard == read, what="the item's output")
        assert notices(app)[-1].startswith("copied the output of read_file a.py (")
        assert app.prompt.text == ""  # the key copied; it was not typed
        app.timeline.focus()
        app.timeline.highlighted = 1
        await pilot.press("c")
        await wait_for(pilot, lambda: app.clipboard == listed, what="the row's output")
        assert saved_copy(app) == listed


def test_code_blocks_follow_the_fences():
    markdown = "a\n````md\n```\ninner\n```\n````\n  ```\nindented\n  ```\n```\nunclosed"
    assert code_blocks(markdown) == ["```\ninner\n```", "indented", "unclosed"]
