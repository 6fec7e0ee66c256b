"""Tool calls a model wrote as text, in the app: run where the fallback applies (the local
model), shown as text with a note where they are not run."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    events_of,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.testing.script import text
from vibe_tui.widgets.conversation import Entry


def notices(app) -> list[str]:
    return [str(entry.content) for entry in app.conversation.query(Entry).filter(".-notice")]


async def test_a_call_in_qwen_tags_runs_and_the_turn_goes_on(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("the secret is 42\n")
    fake_llm.push(text('<tool_call>\n{"name": "read_file", "arguments": "{\\"path\\": '
                       '\\"a.txt\\"}"}\n</tool_call>'), text("It is 42."))
    app = make_app(fake_llm, tmp_path, local_model=True, small_model=False, repo_map_auto=False)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "what is the secret?")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: "It is 42." in screen_text(app), what="the answer")
        calls = events_of(app.session, ev.ToolCall)
        assert [(c.tool, c.args) for c in calls] == [("read_file", {"path": "a.txt"})]
        assert "the secret is 42" in str(fake_llm.requests[1]["messages"])


async def test_a_call_to_no_tool_is_shown_as_text_with_a_note(fake_llm, tmp_path):
    written = '{"name": "open_file", "parameters": {"path": "a.txt"}}'
    fake_llm.push(text(written))
    app = make_app(fake_llm, tmp_path, local_model=True, small_model=False, repo_map_auto=False)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "open a.txt")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: any("not run" in n for n in notices(app)),
                       what="the note")
        assert '"open_file"' in screen_text(app)
        assert any("open_file" in n and "no tool has that name" in n for n in notices(app))
        [answer] = events_of(app.session, ev.AssistantMessage)
        assert answer.text == written  # stored as what it is, not as an empty answer
        assert events_of(app.session, ev.TurnEnded)[-1].state == "completed"
