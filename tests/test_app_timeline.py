"""Tool calls on screen: inline items and the timeline column, updated in place."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    wait_for,
    wait_turns_ended,
)
from engine_helpers import subagent_responder
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.widgets import conversation
from vibe_tui.widgets.diff_view import DiffView
from vibe_tui.widgets.timeline_item import ToolCallItem


def row_text(app, call_id: str) -> str:
    return str(app.timeline.get_option(app.timeline.option_id(call_id)).prompt)


async def test_a_call_goes_from_running_to_ok_in_place(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "sleep 1; echo finished; echo more"},
                                       id="call_sleep")), text("slept"))
    app = make_app(fake_llm, tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "sleep")
        await wait_for(pilot, lambda: app.conversation.tool_item("call_sleep") is not None,
                       what="tool item")
        item = app.conversation.tool_item("call_sleep")
        await wait_for(pilot, lambda: item.state == "running" and row_text(app, "call_sleep")
                       .startswith("⋯ bash"), what="running")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: item.state == "ok", what="ok")
        assert len(app.conversation.query(ToolCallItem)) == 1  # updated, not added again
        assert app.timeline.option_count == 1
        assert row_text(app, "call_sleep").startswith("✓ bash 1.")  # with its duration
        shown = screen_text(app)
        assert "✓ bash  sleep 1; echo finished; echo more" in shown
        assert "⎿ finished  (+" in shown  # the first line, and how many follow


async def test_enter_and_click_expand_the_output(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\ngamma\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.txt"}, id="call_read")),
                  text("read"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read a.txt")
        await wait_turns_ended(pilot, app.session)
        item = app.conversation.tool_item("call_read")
        assert "gamma" not in screen_text(app)
        await pilot.click(item)
        await wait_for(pilot, lambda: "gamma" in screen_text(app), what="expanded by click")
        assert app.focused is app.prompt  # a click does not steal the prompt's keys
        await pilot.click(item)
        await wait_for(pilot, lambda: "gamma" not in screen_text(app), what="collapsed")
        item.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "gamma" in screen_text(app), what="expanded by Enter")


async def test_an_edit_expands_to_its_diff(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("write_file", {"path": "new.py", "content": "x = 1\n"},
                                       id="call_write")), text("written"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write new.py")
        await wait_turns_ended(pilot, app.session)
        item = app.conversation.tool_item("call_write")
        await wait_for(pilot, lambda: item.state == "ok", what="ok")
        item.action_toggle()
        await wait_for(pilot, lambda: app.conversation.query(DiffView), what="diff view")
        await wait_for(pilot, lambda: "+ x = 1" in screen_text(app), what="diff on screen")


async def test_selecting_a_timeline_row_reveals_the_item(fake_llm, tmp_path):
    # Twelve different searches: the same read made three times would be cut short.
    calls = [tool_call("grep", {"pattern": f"p{n}"}, id=f"call_{n}") for n in range(12)]
    fake_llm.push(*(tool_calls(call) for call in calls), text("listed"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "list a lot")
        await wait_turns_ended(pilot, app.session)
        assert app.timeline.option_count == 12
        app.timeline.focus()
        await pilot.press("home", "enter")
        first = app.conversation.tool_item("call_0")
        await wait_for(pilot, lambda: first.expanded, what="expanded")
        await wait_for(pilot, lambda: app.conversation.region.contains_region(first.region),
                       what="scrolled to the item")


async def test_narrow_terminal_hides_the_column_not_the_calls(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("list_dir", {"path": "."}, id="call_ls")), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await submit(pilot, "ls")
        await wait_turns_ended(pilot, app.session)
        assert not app.timeline.display or app.timeline.size.width == 0
        await wait_for(pilot, lambda: "✓ list_dir" in screen_text(app), what="inline item")


async def test_long_sessions_prune_old_entries(fake_llm, tmp_path, monkeypatch):
    monkeypatch.setattr(conversation, "MAX_ENTRIES", 6)
    monkeypatch.setattr(conversation, "PRUNE_SLACK", 2)
    turns = 6
    fake_llm.push(*(text(f"answer {n}") for n in range(turns)))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(turns):
            await submit(pilot, f"question {n}")
            await wait_turns_ended(pilot, app.session, n + 1)
        await wait_for(pilot, lambda: "answer 5" in screen_text(app), what="last answer")
        assert len(app.conversation.entries()) <= 6 + 2
        assert "question 0" not in screen_text(app)


async def test_a_reused_call_id_gets_a_row_of_its_own(fake_llm, tmp_path):
    # Some local servers send no ids, and every response's first call becomes "call_0".
    fake_llm.push(tool_calls(tool_call("list_dir", {"path": "."}, id="call_0")),
                  tool_calls(tool_call("list_dir", {"path": "."}, id="call_0")), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "list twice")
        await wait_turns_ended(pilot, app.session)
        assert app.timeline.option_count == 2
        await wait_for(pilot, lambda: [i.state for i in app.conversation.query(ToolCallItem)]
                       == ["ok", "ok"], what="both ok")
        app.timeline.focus()
        await pilot.press("home", "enter")  # selecting either row works
        await wait_for(pilot, lambda: app.conversation.tool_item("call_0").expanded,
                       what="expanded")


async def test_a_subagents_calls_nest_under_its_task_call_and_its_text_stays_out(tmp_path):
    from vibe_tui.testing.fake_llm import FakeLLM

    (tmp_path / "alpha.py").write_text("ALPHA = 1\n")
    with FakeLLM(responder=subagent_responder) as llm:
        app = make_app(llm, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await submit(pilot, "what is ALPHA?")
            await wait_turns_ended(pilot, app.session)
            task_item = app.conversation.tool_item("call_task")
            nested = app.conversation.tool_item("sub_read")
            assert task_item is not None and nested is not None
            assert nested.has_class("-nested") and not task_item.has_class("-nested")
            siblings = list(task_item.parent.children)
            assert siblings.index(nested) == siblings.index(task_item) + 1
            assert nested.state == "ok"
            assert "↳" in row_text(app, "sub_read") and "↳" not in row_text(app, "call_task")
            shown = screen_text(app)
            assert "MAINANSWER" in shown
            # The report reaches the screen only as the task call's result, not as an answer.
            from vibe_tui.widgets.answer import AnswerView

            answers = " ".join(str(view.source) for view in app.conversation.query(AnswerView))
            assert "MAINANSWER" in answers and "SUBREPORT" not in answers


async def test_a_call_on_a_file_named_with_an_escape_sequence_shows_the_real_name(
        fake_llm, tmp_path):
    name, shown = "esc\x1b]0;X\x07.txt", "esc\\x1b]0;X\\x07.txt"
    (tmp_path / name).write_text("inside\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": name}, id="call_read")),
                  text("read"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read it")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: app.conversation.tool_item("call_read").state == "ok",
                       what="ok")
        assert row_text(app, "call_read").endswith(shown)
        assert f"read_file  {shown}" in screen_text(app)
