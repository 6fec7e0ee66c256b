"""The ``todo`` tool and the visible plan: the tool's checks, the policy (never asks), a
plan updated over three steps of one turn and read back on resume, and how the terminal
app, ``-p`` and the web view show it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
from engine_helpers import make_session, of_type, run_turn, tool_messages
from vibe_tui.app import VibeApp
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.plan import current_plan
from vibe_tui.core.session import Session
from vibe_tui.policy.decide import decide
from vibe_tui.policy.types import MODES, PolicyContext
from vibe_tui.testing.script import hold, text, tool_call, tool_calls
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.todo import MAX_ITEMS, PlanItem, TodoTool, plan_items

STEPS = ("read the code", "fix add()", "run the tests", "write the summary")
# The plan after each of the three calls: one more item done each time.
PLANS = [
    [{"text": STEPS[0], "state": "in_progress"}] + [{"text": s, "state": "pending"} for s in STEPS[1:]],
    [{"text": STEPS[0], "state": "done"}, {"text": STEPS[1], "state": "in_progress"},
     {"text": STEPS[2], "state": "pending"}, {"text": STEPS[3], "state": "pending"}],
    [{"text": STEPS[0], "state": "done"}, {"text": STEPS[1], "state": "done"},
     {"text": STEPS[2], "state": "in_progress"}, {"text": STEPS[3], "state": "pending"}],
]
FINAL = [PlanItem(item["text"], item["state"]) for item in PLANS[-1]]
ANSWER = "Fixed add(); the tests are next."


def three_updates(llm) -> None:
    llm.push(*(tool_calls(tool_call("todo", {"items": plan}, id=f"plan_{n}"))
               for n, plan in enumerate(PLANS)), text(ANSWER))


@pytest.fixture
def ctx(tmp_path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


# ---- the tool ---------------------------------------------------------------------------


async def test_states_are_read_forgivingly_and_the_checklist_is_what_the_model_reads(ctx):
    tool = TodoTool()
    args = {"items": ["plain string", {"text": "a", "state": "completed"},
                      {"content": "b", "status": "In-Progress"}, {"text": "c", "state": "todo"},
                      {"text": "  two\n lines  "}]}
    tool.precheck(args, ctx)
    output = await tool.run(args, ctx)
    assert output.ok
    assert output.meta == {"items": [
        {"text": "plain string", "state": "pending"}, {"text": "a", "state": "done"},
        {"text": "b", "state": "in_progress"}, {"text": "c", "state": "pending"},
        {"text": "two lines", "state": "pending"}]}
    assert output.text == ("plan updated: 1 of 5 done\n[ ] plain string\n[x] a\n[>] b\n"
                           "[ ] c\n[ ] two lines")


async def test_a_list_sent_as_json_text_is_read_and_an_empty_list_clears_the_plan(ctx):
    tool = TodoTool()
    output = await tool.run({"items": '[{"text": "x", "state": "done"}]'}, ctx)
    assert output.meta == {"items": [{"text": "x", "state": "done"}]}
    cleared = await tool.run({"items": []}, ctx)
    assert (cleared.text, cleared.meta) == ("plan cleared", {"items": []})


@pytest.mark.parametrize("args, says", [
    ({}, "missing required argument 'items'"),
    ({"items": {"text": "a"}}, "must be a list"),
    ({"items": "not json"}, "must be a list of items, not text"),
    ({"items": [{"text": "a", "state": "done"}, {"text": " ", "state": "pending"}]},
     "item 2 has no text"),
    ({"items": [{"state": "pending"}]}, "item 1 has no text"),
    ({"items": [{"text": "a", "state": "blocked"}]},
     "item 1 has state 'blocked'; use pending, in_progress or done"),
    ({"items": [3]}, "item 1 must be an object"),
    ({"items": ["x"] * (MAX_ITEMS + 1)}, f"keep it to {MAX_ITEMS} or fewer"),
    ({"items": ["x" * 400]}, "item 1 is 400 characters long"),
])
def test_a_bad_plan_is_refused_with_a_message_the_model_can_act_on(ctx, args, says):
    with pytest.raises(ToolError) as refused:
        TodoTool().precheck(args, ctx)
    assert says in str(refused.value)


async def test_two_items_in_progress_is_advice_not_an_error(ctx):
    output = await TodoTool().run({"items": [{"text": "a", "state": "in_progress"},
                                             {"text": "b", "state": "in_progress"}]}, ctx)
    assert output.ok and len(output.meta["items"]) == 2
    assert "note: 2 items are in_progress" in output.text


def test_items_from_a_log_keep_only_well_formed_entries():
    meta = {"items": [{"text": "ok", "state": "done"}, {"text": "bad state", "state": "late"},
                      {"state": "pending"}, "loose", {"text": 5, "state": "done"}]}
    assert plan_items(meta) == [PlanItem("ok", "done")]
    assert plan_items({"items": "nope"}) == [] == plan_items(None)


@pytest.mark.parametrize("mode", MODES)
def test_the_policy_never_asks_for_the_plan_and_a_deny_rule_still_wins(ctx, tmp_path, mode):
    request = TodoTool().precheck({"items": PLANS[0]}, ctx)
    allowed = decide(request, PolicyContext(mode=mode, workspace=tmp_path))
    assert allowed.action == "allow", allowed.reason
    denied = decide(request, PolicyContext(mode=mode, workspace=tmp_path, deny=["todo"]))
    assert (denied.action, denied.reason) == ("deny", "denied by rule todo")


# ---- a session ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["default", "plan"])
async def test_a_plan_updated_over_three_steps_is_the_plan_again_after_resume(
        fake_llm, tmp_path, mode):
    three_updates(fake_llm)
    session = make_session(fake_llm, tmp_path, mode=mode)
    end = await run_turn(session, "fix the bug")
    await session.close()
    assert end.state == "completed"
    assert of_type(session, ev.ApprovalRequested) == []
    results = of_type(session, ev.ToolResult)
    assert [(r.tool, r.kind, r.status) for r in results] == [("todo", "plan", "ok")] * 3
    assert current_plan(session.event_log) == FINAL
    tool_names = [t["function"]["name"] for t in fake_llm.requests[0]["tools"]]
    assert tool_names[-2:] == ["todo", "task"]  # joined at the end: the others keep their order
    read = tool_messages(fake_llm.requests[3])[-1]["content"]
    assert read.startswith("plan updated: 2 of 4 done\n[x] read the code\n[x] fix add()\n"
                           "[>] run the tests\n[ ] write the summary")

    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             tmp_path, session.store_path)
    try:
        assert current_plan(resumed.event_log) == FINAL
    finally:
        await resumed.close()


async def test_a_failed_update_or_a_helpers_result_does_not_change_the_plan(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("todo", {"items": PLANS[0]})),
                  tool_calls(tool_call("todo", {"items": [{"text": "a", "state": "late"}]})),
                  text("done"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "go")
    await session.close()
    assert [r.status for r in of_type(session, ev.ToolResult)] == ["ok", "error"]
    assert [item.text for item in current_plan(session.event_log)] == list(STEPS)
    nested = ev.ToolResult(call_id="sub", tool="todo", output="", status="ok", kind="plan",
                           meta={"items": []}, parent_call_id="task_1")
    assert current_plan([*session.event_log, nested]) != []  # a sub-agent has no plan


# ---- the terminal app -------------------------------------------------------------------


def plan_lines(app) -> list[str]:
    """The screen's lines from the plan's title down to the prompt's border."""
    lines = screen_text(app).splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Plan "))
    return [line.strip() for line in lines[start:start + 1 + len(STEPS)]]


EXPECTED_SCREEN = ["Plan 2/4", "✓ read the code", "✓ fix add()", "▶ run the tests",
                   "○ write the summary"]


async def test_the_app_shows_the_plan_live_and_again_after_resume(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("todo", {"items": PLANS[0]})),
                  hold(tool_calls(tool_call("todo", {"items": PLANS[1]}))),
                  tool_calls(tool_call("todo", {"items": PLANS[2]})), text(ANSWER))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.plan_view.display  # no plan yet
        await submit(pilot, "fix the bug")
        # While the model thinks about its next step, the first plan is on screen.
        await wait_for(pilot, lambda: app.plan_view.items, what="the first plan")
        await pilot.pause()
        assert plan_lines(app) == ["Plan 0/4", "▶ read the code", "○ fix add()",
                                   "○ run the tests", "○ write the summary"]
        assert app.session.running
        fake_llm.release()
        await wait_turns_ended(pilot, app.session)
        await pilot.pause()
        assert plan_lines(app) == EXPECTED_SCREEN
        assert "plan: 2/4 done" in screen_text(app)  # the timeline's line for the call
        assert '"items"' not in screen_text(app)  # no call is drawn as its JSON arguments
    resumed = VibeApp(Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                                     tmp_path, app.session.store_path))
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: resumed.plan_view.items, what="the replayed plan")
        await pilot.pause()
        assert plan_lines(resumed) == EXPECTED_SCREEN


async def test_a_finished_plan_stays_until_the_next_turn_starts(fake_llm, tmp_path):
    finished = [{"text": step, "state": "done"} for step in STEPS[:2]]
    fake_llm.push(tool_calls(tool_call("todo", {"items": finished})), text("all done"),
                  text("hello again"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "do it")
        await wait_turns_ended(pilot, app.session)
        await pilot.pause()
        assert app.plan_view.display and "Plan 2/2" in screen_text(app)
        await submit(pilot, "thanks")
        await wait_turns_ended(pilot, app.session, 2)
        await pilot.pause()
        assert not app.plan_view.display
        assert "Plan 2/2" not in screen_text(app)


# ---- -p ---------------------------------------------------------------------------------


def test_headless_prints_each_new_plan_to_stderr_and_only_the_answer_to_stdout(
        fake_llm, tmp_path):
    three_updates(fake_llm)
    home = tmp_path / "home"
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "VIBE_TUI_HOME": str(home),
           "HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    result = subprocess.run(
        [sys.executable, "-m", "vibe_tui", "--model", fake_llm.model, "--api-base",
         fake_llm.base_url, "-p", "fix the bug"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ANSWER
    assert ("→ todo\nplan: 1/4 done\n  [x] read the code\n  [>] fix add()\n  [ ] run the tests\n"
            "  [ ] write the summary\n") in result.stderr
    assert result.stderr.count("→ todo") == 3
    assert result.stderr.index("plan: 0/4 done") < result.stderr.index("plan: 1/4 done") \
        < result.stderr.index("plan: 2/4 done")
    assert '"items"' not in result.stderr  # the plan is printed, not its arguments


# ---- the web view -------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
async def test_the_web_view_shows_the_plan_and_again_for_a_resumed_session(fake_llm, tmp_path):
    from playwright.async_api import async_playwright

    three_updates(fake_llm)
    session = make_session(fake_llm, tmp_path)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--no-first-run"])
        try:
            live = await web_plan(browser, session, send="fix the bug")
            await session.close()
            resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                                     tmp_path, session.store_path)
            replayed = await web_plan(browser, resumed)
            await resumed.close()
        finally:
            await browser.close()
    expected = ("Plan 2/4", [("✓", STEPS[0], "done"), ("✓", STEPS[1], "done"),
                             ("▶", STEPS[2], "in_progress"), ("○", STEPS[3], "pending")])
    assert live == expected
    assert replayed == expected


async def web_plan(browser, session: Session, send: str | None = None):
    """Open the session's web view (sending ``send`` from it) and read its plan box once
    the session is idle and the page has drawn every event."""
    from vibe_tui.web import WebView

    view = WebView(session, port=0)
    await view.start()
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        await page.goto(view.url)
        await page.wait_for_selector("#conn[data-state=connected]")
        if send is not None:
            await page.fill("#prompt", send)
            await page.press("#prompt", "Enter")
            await page.wait_for_function(
                "() => document.querySelectorAll('.tool[data-state=ok]').length === 3")
            await page.wait_for_selector("#turn-state[data-state=idle]")
        await page.wait_for_function("(last) => Number(document.body.dataset.lastEventId) >= last",
                                     arg=session.event_log[-1].id)
        assert await page.is_visible("#plan")
        title = await page.text_content("#plan .title")
        rows = [(await row.locator(".mark").text_content(),
                 await row.locator(".text").text_content(), await row.get_attribute("data-state"))
                for row in await page.locator("#plan li").all()]
        assert errors == [], "the page raised script errors"
        return title, rows
    finally:
        await page.close()
        await view.stop()
