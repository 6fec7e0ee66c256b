"""Small-model steps with a program that asks questions: the harness starts the program the
task names in a real pseudo-terminal, and the model's type steps answer it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine_helpers import make_session, of_type, run_turn

from vibe_tui.core import events as ev
from vibe_tui.core.step_context import runs_in_terminal
from vibe_tui.core.step_protocol import STEP_FORMAT, TERMINAL_FORMAT, TYPE_FORMAT
from vibe_tui.testing.script import text

WIZARD = """\
import json, sys
if not sys.stdin.isatty():
    sys.exit("run me in a terminal")
name = input("Project name: ")
cache = input("Enable the cache? (y/n): ")
debug = input("Enable debug? (y/n): ")
json.dump({"name": name, "cache": cache == "y", "debug": debug == "y"},
          open("settings.json", "w"))
print("wrote settings.json")
"""


def step(**fields) -> object:
    return text(json.dumps(fields))


def user_text(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def test_a_wizard_the_task_names_is_started_in_a_terminal_and_answered(fake_llm,
                                                                       tmp_path: Path) -> None:
    (tmp_path / "wizard.py").write_text(WIZARD)
    fake_llm.push(step(action="type", text="orchid"), step(action="type", text="y"),
                  step(action="type", text="y"),
                  step(action="answer", text="I created settings.json with the wizard."))
    session = make_session(fake_llm, tmp_path, small_model=True,
                           allow=["Bash(python3 wizard.py)"], sandbox="off")

    end = asyncio.run(run_turn(session, "Run the set-up wizard `python3 wizard.py` and "
                                        "answer its questions: name orchid, cache and debug on."))

    assert end.state == "completed"
    assert json.loads((tmp_path / "settings.json").read_text()) == {
        "name": "orchid", "cache": True, "debug": True}
    calls = of_type(session, ev.ToolCall)
    assert [c.tool for c in calls] == ["interactive_start", *["interactive_send"] * 3]
    assert calls[1].args == {"session_id": calls[1].args["session_id"], "input": "orchid<enter>"}
    first, *_, last = fake_llm.requests
    assert "started `python3 wizard.py` in a terminal" in user_text(first)
    assert "Project name:" in user_text(first)
    # The second "y" is an answer to another question, not a repeated step.
    assert 'Step 3: typed "y" and Enter' in user_text(last)
    assert "wrote settings.json" in user_text(last)
    assert len(fake_llm.requests) == 4  # the answer is not sent back: the typing changed a file
    # While the program waits, only a type step is possible; once it exits, any step.
    assert [r["response_format"] for r in fake_llm.requests] == [TYPE_FORMAT] * 3 + [TERMINAL_FORMAT]
    assert "The program waits for input" in user_text(first)


def test_typing_with_no_program_started_tells_the_model(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="type", text="yes"), step(action="answer", text="Nothing runs."))
    session = make_session(fake_llm, tmp_path, small_model=True, sandbox="off")

    end = asyncio.run(run_turn(session, "Say yes."))

    assert end.state == "completed"
    assert "Step 1: typed \"yes\" and Enter: failed" in user_text(fake_llm.requests[-1])
    # A task that does not say its program asks is not offered a terminal at all.
    assert fake_llm.requests[0]["response_format"] == STEP_FORMAT
    offered = {s["properties"]["action"]["const"]
               for s in STEP_FORMAT["json_schema"]["schema"]["anyOf"]}
    assert offered == {"answer", "read", "run", "edit", "write", "rename"}


def test_only_a_task_that_says_its_command_asks_is_run_in_a_terminal() -> None:
    assert runs_in_terminal("Create it by running the interactive set-up wizard `python3 c.py`")
    assert runs_in_terminal("Run `python3 c.py` and answer its questions")
    assert not runs_in_terminal("Run `pytest` and fix the failing test")
