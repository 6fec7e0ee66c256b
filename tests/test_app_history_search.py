"""Ctrl+R: a search through the prompts sent in this session and earlier sessions of the
workspace. Enter puts the chosen prompt in the prompt box (not sent), Esc cancels."""

from __future__ import annotations

import os
from pathlib import Path

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    litellm_loaded,
    make_app,
    no_key_grace,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.core.past_prompts import workspace_prompts
from vibe_tui.core.store import SessionStore
from vibe_tui.screens.history_search import HistorySearch
from vibe_tui.testing.script import text


def earlier_session(workspace: Path, session_id: str, prompts: list[str], age_s: float) -> None:
    store = SessionStore.create(workspace, session_id)
    store.append(ev.SessionStarted(id=1, session_id=session_id, workspace=str(workspace),
                                   model="m", mode="default"))
    for number, prompt in enumerate(prompts, start=1):
        store.append(ev.TurnStarted(id=2 * number, turn_id=number, prompt=prompt))
        store.append(ev.UserMessage(id=2 * number + 1, turn_id=number, text=prompt))
    store.close()
    then = store.path.stat().st_mtime - age_s
    os.utime(store.path, (then, then))


def shown(app) -> list[str]:
    return app.screen.shown_prompts() if isinstance(app.screen, HistorySearch) else []


async def test_ctrl_r_finds_a_prompt_of_an_earlier_session(fake_llm, tmp_path):
    earlier_session(tmp_path, "20250101-090000-aaaaaa", ["fix the flaky login test",
                                                         "explain the parser"], age_s=7200)
    earlier_session(tmp_path, "20250102-090000-bbbbbb", ["rename the login helper"],
                    age_s=3600)
    fake_llm.push(text("ok"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "add a login page")
        await wait_turns_ended(pilot, app.session)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(shown(app)) == 4, what="every past prompt")
        # Newest first: this session's, then the earlier sessions' from the latest.
        assert shown(app) == ["add a login page", "rename the login helper",
                              "explain the parser", "fix the flaky login test"]
        await pilot.press(*"login fla")
        await wait_for(pilot, lambda: shown(app) == ["fix the flaky login test"],
                       what="the filtered list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistorySearch), what="closed")
        assert app.prompt.text == "fix the flaky login test"
        assert app.focused is app.prompt
        assert len(fake_llm.requests) == 1  # put in the prompt, not sent
        await pilot.press("ctrl+r", *"parser")
        await wait_for(pilot, lambda: shown(app) == ["explain the parser"], what="a match")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistorySearch), what="closed")
        assert app.prompt.text == "fix the flaky login test"  # Esc changed nothing


async def test_ctrl_r_with_no_match_says_so(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, HistorySearch), what="the search")
        await pilot.press(*"zzz")
        await wait_for(pilot, lambda: app.screen.status_text() == "no past prompt matches",
                       what="the empty result")
        await pilot.press("enter")  # nothing chosen: the search stays open
        assert isinstance(app.screen, HistorySearch)


def test_workspace_prompts_are_newest_first_and_once(tmp_path):
    earlier_session(tmp_path, "20250101-090000-aaaaaa", ["one", "two", "one"], age_s=60)
    earlier_session(tmp_path, "20250101-100000-cccccc", ["three", "two"], age_s=10)
    assert workspace_prompts(tmp_path) == ["two", "three", "one"]
