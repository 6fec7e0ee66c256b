"""Keys that act on the session: steering, interrupting, mode cycling, quitting."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    events_of,
    litellm_loaded,
    make_app,
    no_key_grace,
    submit,
    turn_endings,
    user_texts,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.testing.script import hold, text, tool_call, tool_calls
from vibe_tui.widgets.answer import AnswerView
from vibe_tui.widgets.conversation import Entry


def entries(app, classes: str) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(classes)]


def answer_sources(app) -> list[str]:
    return [m.source for m in app.conversation.query(AnswerView)]


async def test_enter_during_a_turn_steers_it(fake_llm, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_llm.push(hold(tool_calls(tool_call("read_file", {"path": "a.py"}))), text("steered"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "look at a.py")
        await wait_for(pilot, lambda: len(fake_llm.requests) == 1, what="first request")
        await submit(pilot, "also check b.py")  # the turn is mid-way: this steers it
        assert app.prompt.text == ""
        fake_llm.release()
        await wait_turns_ended(pilot, app.session)
        assert "also check b.py" in user_texts(fake_llm.requests[1])
        assert len(turn_endings(app.session)) == 1  # one turn, steered; not a second one
        await wait_for(pilot, lambda: entries(app, ".-steering"), what="steering line")
        assert entries(app, ".-steering") == ["↳ steering: also check b.py"]
        # It shows where it entered: after the tool call, before the answer.
        kinds = [type(w).__name__ + ("-steer" if w.has_class("-steering") else "")
                 for w in app.conversation.entries()]
        assert kinds.index("ToolCallItem") < kinds.index("Entry-steer") < kinds.index("AnswerView")


async def interrupt_and_continue(pilot, fake_llm, key: str) -> None:
    app = pilot.app
    fake_llm.push(hold(text("never shown")))
    await submit(pilot, "take your time")
    await wait_for(pilot, lambda: len(fake_llm.requests) == 1 and app.session.running,
                   what="held request")
    await pilot.press(key)
    await wait_turns_ended(pilot, app.session)
    assert turn_endings(app.session)[-1].state == "interrupted"
    await wait_for(pilot, lambda: entries(app, ".-interrupted"), what="interrupted line")
    # The session is still usable: a second prompt gets its answer.
    fake_llm.push(text("second answer"))
    await submit(pilot, "again")
    await wait_turns_ended(pilot, app.session, 2)
    assert turn_endings(app.session)[-1].state == "completed"
    await wait_for(pilot, lambda: "second answer" in answer_sources(app), what="second answer")
    assert "again" in user_texts(fake_llm.requests[-1])


async def test_escape_interrupts_the_turn(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await interrupt_and_continue(pilot, fake_llm, "escape")


async def test_ctrl_c_interrupts_the_turn(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await interrupt_and_continue(pilot, fake_llm, "ctrl+c")


async def test_ctrl_c_clears_the_prompt_then_twice_quits(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"half typed")
        assert app.prompt.text == "half typed"
        await pilot.press("ctrl+c")
        assert app.prompt.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running, what="app exit")
    assert app.return_code == 0
    assert app.session._closed


async def test_ctrl_q_quits_and_closes_the_session(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, what="app exit")
    assert app.session._closed


async def test_shift_tab_cycles_modes(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(4):
            await pilot.press("shift+tab")
            await wait_for(pilot, lambda: app.status_bar.mode == app.session.mode,
                           what="status bar mode")
            seen.append(app.session.mode)
        assert seen == ["accept-edits", "plan", "yolo", "default"]
        assert [e.mode for e in events_of(app.session, ev.ModeChanged)] == seen
        assert app.focused is app.prompt  # Shift+Tab did not move the focus


async def test_prompt_history_with_up_and_down(fake_llm, tmp_path):
    fake_llm.push(text("one"), text("two"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "second")
        await wait_turns_ended(pilot, app.session, 2)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.prompt.text == "second"
        await pilot.press("up")
        assert app.prompt.text == "first"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"


async def test_shift_enter_and_ctrl_j_insert_newlines(fake_llm, tmp_path):
    fake_llm.push(text("ok"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.prompt.text == "a\nb\nc"
        await pilot.press("enter")
        await wait_turns_ended(pilot, app.session)
        assert "a\nb\nc" in user_texts(fake_llm.requests[0])


async def fill_conversation(pilot, lines: int = 120) -> None:
    app = pilot.app
    for number in range(lines):
        app.conversation.add_entry(f"line {number}", "-notice")
    await wait_for(pilot, lambda: app.conversation.max_scroll_y > 2 * app.conversation.size.height
                   and app.conversation.scroll_y == app.conversation.max_scroll_y,
                   what="a conversation longer than two pages, followed to its end")


async def test_page_keys_scroll_the_conversation_from_the_prompt(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await fill_conversation(pilot)
        pane = app.conversation
        bottom = pane.max_scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: pane.scroll_y < bottom, what="a page up")
        assert pane.scroll_y == bottom - pane.scrollable_content_region.height
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: pane.scroll_y == 0, what="the top")
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: pane.scroll_y == pane.scrollable_content_region.height,
                       what="a page down")
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: pane.scroll_y == pane.max_scroll_y, what="the end")
        assert app.focused is app.prompt
        await pilot.press(*"still here")
        assert app.prompt.text == "still here"


async def test_keys_typed_after_tab_reach_the_prompt(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("list_dir", {"path": "."})), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "look")
        await wait_turns_ended(pilot, app.session)
        await pilot.press("tab")
        assert app.focused is not app.prompt  # Tab moved on, into the conversation
        await pilot.press(*"hello")
        assert app.prompt.text == "hello"
        assert app.focused is app.prompt
        await pilot.press("tab", "tab", *" world")  # further along: a tool call, the timeline
        assert app.prompt.text == "hello world"
