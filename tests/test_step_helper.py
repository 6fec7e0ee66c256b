"""Small-model steps with a helper: a task that asks for the task tool has the harness
send a read-only sub-agent, which works in steps too (answer and read only); its report
is what the main agent answers from."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine_helpers import make_session, of_type, run_turn

from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.step_context import sends_helper
from vibe_tui.core.step_protocol import ANSWER_FORMAT, LOOK_FORMAT, READ_FORMAT
from vibe_tui.testing.script import text

TASK = ("Use the task tool to send a helper through the pkg/ package: it should find every "
        "environment variable the code reads and in which file. Then answer with the list. "
        "Do not change any file.")
# The same, naming the code to look for.
CODE_TASK = TASK.replace("the code reads", "the code reads (os.environ)")


def step(**fields) -> object:
    return text(json.dumps(fields))


def user_text(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def workspace(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "intake.py").write_text(
        "import os\n\n\ndef url():\n    return os.environ.get('PKG_URL', 'x')\n")
    (tmp_path / "pkg" / "notes.txt").write_text("retries come from PKG_RETRIES\n")
    return tmp_path


def test_a_task_that_asks_for_a_helper_has_the_harness_send_one_that_reads_in_steps(
        fake_llm, tmp_path: Path) -> None:
    fake_llm.push(
        step(action="read", path="pkg/notes.txt"),  # the helper's first step
        step(action="answer", text="PKG_URL in pkg/intake.py; PKG_RETRIES in pkg/notes.txt"),
        step(action="answer", text="The code reads PKG_URL (pkg/intake.py) and PKG_RETRIES."))
    session = make_session(fake_llm, workspace(tmp_path), small_model=True, sandbox="off")

    end = asyncio.run(run_turn(session, TASK))

    assert end.state == "completed"
    calls = of_type(session, ev.ToolCall)
    main_calls = [c.tool for c in calls if c.parent_call_id is None]
    helper_calls = [c for c in calls if c.parent_call_id is not None]
    assert main_calls == ["task"]
    assert [c.tool for c in helper_calls] == ["read_file"]
    assert helper_calls[0].parent_call_id == calls[0].call_id
    helper_first, helper_second, main = fake_llm.requests
    # The helper is held to its reading steps and sees what the harness gathered for it.
    assert helper_first["response_format"] == READ_FORMAT
    assert "os.environ.get('PKG_URL'" in user_text(helper_first)
    assert "retries come from PKG_RETRIES" in user_text(helper_second)
    # The main agent changes nothing: it answers from the helper's report.
    assert main["response_format"] == ANSWER_FORMAT
    assert "sent a helper (the task tool); its report:" in user_text(main)
    assert "PKG_RETRIES in pkg/notes.txt" in user_text(main)
    assert session.messages[-1]["content"].startswith("The code reads PKG_URL")


def test_a_helper_sent_for_code_the_search_lists_answers_from_those_lines(
        fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="PKG_URL in pkg/intake.py"),
                  step(action="answer", text="The code reads PKG_URL (pkg/intake.py)."))
    session = make_session(fake_llm, workspace(tmp_path), small_model=True, sandbox="off")

    end = asyncio.run(run_turn(session, CODE_TASK))

    assert end.state == "completed"
    helper, main = fake_llm.requests
    assert helper["response_format"] == ANSWER_FORMAT
    assert ("Every line of the repository that names environ:\n"
            "pkg/intake.py:5: return os.environ.get('PKG_URL', 'x')") in user_text(helper)
    assert "PKG_URL in pkg/intake.py" in user_text(main)
    assert session.messages[-1]["content"] == "The code reads PKG_URL (pkg/intake.py)."


def test_a_helper_that_runs_out_of_steps_says_so_and_the_turn_goes_on(
        fake_llm, tmp_path: Path) -> None:
    # The helper's ten steps: one that is not JSON, then the same read over and over.
    fake_llm.push(text('{"action": "read", pa'), *[step(action="read", path="pkg/missing.py")] * 9,
                  step(action="answer", text="The helper found nothing I could use."))
    session = make_session(fake_llm, workspace(tmp_path), small_model=True, sandbox="off")

    end = asyncio.run(run_turn(session, TASK))

    assert end.state == "completed"
    assert len(fake_llm.requests) == 11
    main = fake_llm.requests[-1]
    assert "the helper used all its 10 model calls" in user_text(main)
    assert main["response_format"] == ANSWER_FORMAT
    assert session.messages[-1]["content"] == "The helper found nothing I could use."


def test_the_free_loop_model_and_a_user_who_turned_helpers_off_get_none(
        fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="I looked myself."))
    session = make_session(fake_llm, workspace(tmp_path), small_model=True, sandbox="off",
                           subagents=False)

    asyncio.run(run_turn(session, TASK))

    assert [c.tool for c in of_type(session, ev.ToolCall)] == []
    assert fake_llm.requests[0]["response_format"] == LOOK_FORMAT
    assert Config(local_model=True, small_model=False).subagents_on is False
    assert Config(local_model=True).subagents_on is True


def test_only_a_task_that_asks_for_a_helper_sends_one() -> None:
    assert sends_helper(TASK)
    assert sends_helper("Ask a helper to find where the port is set.")
    assert sends_helper("Use a sub-agent to list the tests.")
    assert not sends_helper("The bug is in the helper module: fix it.")
    assert not sends_helper("Add a task to the todo list tool.")
