"""Slash commands, !shell lines, completion and the command palette."""

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
from vibe_tui.testing.fake_llm import text
from vibe_tui.widgets.conversation import Entry
from vibe_tui.widgets.prompt_input import CompletionList


def entries(app, classes: str) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(classes)]


def completions(app) -> list[str]:
    return [c.value for c in app.query_one(CompletionList).completions]


async def test_mode_and_model_commands_change_the_session(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/mode plan")
        assert app.session.mode == "plan"
        await submit(pilot, "/mode nonsense")
        assert app.session.mode == "plan"
        await submit(pilot, "/model openai/other-model")
        assert app.session.model == "openai/other-model"
        await wait_for(pilot, lambda: app.status_bar.model == "openai/other-model"
                       and app.status_bar.mode == "plan", what="status bar")
        notices = entries(app, ".-notice")
        assert notices[0] == "mode: plan"
        assert notices[1].startswith("mode: plan · choose one of default, accept-edits")
        assert notices[2] == "model: openai/other-model (from the next model call)"
        assert [e.model for e in events_of(app.session, ev.ModelChanged)] == ["openai/other-model"]
        assert fake_llm.requests == []  # commands never reach the model


async def test_help_unknown_and_not_yet_available(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/help")
        await submit(pilot, "/frobnicate")
        await submit(pilot, "/compact")
        help_text, unknown, compact = entries(app, ".-notice")
        assert "/model NAME" in help_text and "Shift+Tab" in help_text
        assert unknown == "unknown command /frobnicate: /help lists the commands"
        assert compact == "/compact is not available yet"
        assert fake_llm.requests == []


async def test_a_path_is_a_message_not_a_command(fake_llm, tmp_path):
    fake_llm.push(text("looked"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/src/main.py fails")
        await wait_turns_ended(pilot, app.session)
        assert fake_llm.requests[0]["messages"][-1]["content"] == "/src/main.py fails"


async def test_clear_empties_the_view_only(fake_llm, tmp_path):
    fake_llm.push(text("an answer"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/clear")
        await wait_for(pilot, lambda: len(app.conversation.children) == 0, what="empty view")
        assert len(app.session.messages) == 2  # the model still remembers


async def test_bang_runs_the_users_own_command(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "!echo hi && pwd && exit 3")
        await wait_for(pilot, lambda: entries(app, ".-shell"), what="shell output")
        assert "$ echo hi && pwd && exit 3" in entries(app, ".-user")
        assert entries(app, ".-shell") == [f"hi\n{tmp_path.resolve()}\n[exit 3]"]
        assert fake_llm.requests == [] and not events_of(app.session, ev.ToolCall)


async def test_slash_and_at_completion(fake_llm, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "README.md").write_text("")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "m")
        await wait_for(pilot, lambda: completions(app) == ["/model ", "/mode "], what="/m")
        await pilot.press("down", "tab")
        assert app.prompt.text == "/mode "
        assert not app.query_one(CompletionList).shown
        app.prompt.clear()
        await pilot.press(*"look at @mai")
        await wait_for(pilot, lambda: completions(app) == ["@src/main.py "], what="@mai")
        await pilot.press("enter")  # Enter takes the completion; it does not send
        assert app.prompt.text == "look at @src/main.py "
        assert fake_llm.requests == []
        await pilot.press("escape")
        assert not app.session.running


def first_palette_hit(app) -> str:
    from textual.command import CommandList

    results = app.screen.query(CommandList)
    if not results or results.first().option_count == 0:
        return ""
    return str(results.first().get_option_at_index(0).prompt)


async def test_palette_offers_the_same_actions(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.screen.id == "--command-palette"
                       or type(app.screen).__name__ == "CommandPalette", what="palette")
        await pilot.press(*"mode: yolo")
        await wait_for(pilot, lambda: first_palette_hit(app).startswith("Mode: yolo"),
                       what="palette hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.mode == "yolo", what="yolo mode")
