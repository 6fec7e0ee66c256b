"""The task tool: read-only sub-agents against the fake model server."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from engine_helpers import make_session, of_type, run_turn, tool_messages
from vibe_tui.core import events as ev
from vibe_tui.core.model import litellm_module
from vibe_tui.core.prompts import LAST_CALL_NOTE, SUBAGENT_PROMPT
from vibe_tui.core.store import read_events
from vibe_tui.core.subagent import MAX_SUBAGENT_CALLS
from vibe_tui.testing.fake_llm import FakeLLM
from vibe_tui.testing.script import hold, text, tool_call, tool_calls

HELPER_MARK = SUBAGENT_PROMPT.splitlines()[0][:40]


@pytest.fixture(autouse=True, scope="module")
def _litellm_imported():
    litellm_module()  # once, before any turn's timeout starts


def is_helper(request: dict) -> bool:
    return request["messages"][0]["content"].startswith(HELPER_MARK)


def helper_task(request: dict) -> str:
    return request["messages"][1]["content"]


def task_session_responder(request: dict):
    """The main agent sends two helpers; each tries to write, reads, then reports."""
    messages = request["messages"]
    if is_helper(request):
        task = helper_task(request)
        calls_made = sum(1 for m in messages if m["role"] == "assistant")
        if calls_made == 0:
            return tool_calls(tool_call("write_file", {"path": "pwned.txt", "content": "x"}))
        if calls_made == 1:
            return tool_calls(tool_call("read_file", {"path": f"{task}.py"}))
        return text(f"REPORT {task}: found it in {task}.py line 1")
    if messages[-1]["role"] == "user":
        return tool_calls(tool_call("task", {"prompt": "alpha"}, id="task_a"),
                          tool_call("task", {"prompt": "beta"}, id="task_b"))
    return text("Both helpers reported.")


async def test_helpers_cannot_write_run_concurrently_and_nest_their_events(tmp_path):
    (tmp_path / "alpha.py").write_text("ALPHA = 1\n")
    (tmp_path / "beta.py").write_text("BETA = 2\n")
    with FakeLLM(responder=task_session_responder) as llm:
        session = make_session(llm, tmp_path)
        end = await run_turn(session, "find alpha and beta")
        assert end.state == "completed"
        assert not (tmp_path / "pwned.txt").exists()

        helper_requests = [r for r in llm.requests if is_helper(r)]
        assert len(helper_requests) == 6
        for request in helper_requests:
            names = {t["function"]["name"] for t in request["tools"]}
            assert {"read_file", "list_dir", "grep"} <= names
            assert names <= {"read_file", "list_dir", "grep", "repo_map"}
        # Each helper started from an empty history: its system prompt and its task.
        firsts = [r for r in helper_requests if len(r["messages"]) == 2]
        assert sorted(helper_task(r) for r in firsts) == ["alpha", "beta"]

        results = {r.call_id: r for r in of_type(session, ev.ToolResult)}
        assert results["task_a"].output == "REPORT alpha: found it in alpha.py line 1"
        assert results["task_b"].parent_call_id is None
        nested = [r for r in results.values() if r.parent_call_id is not None]
        assert {r.parent_call_id for r in nested} == {"task_a", "task_b"}
        writes = [r for r in nested if r.tool == "write_file"]
        assert len(writes) == 2 and all("unknown tool 'write_file'" in w.output for w in writes)
        assert all("read_file, list_dir, grep" in w.output for w in writes)
        reads = [r for r in nested if r.tool == "read_file"]
        assert {r.parent_call_id: ("ALPHA" in r.output) for r in reads} == {
            "task_a": True, "task_b": False}

        # Only the reports reach the main conversation.
        main = [r for r in llm.requests if not is_helper(r)][-1]
        assert sorted(m["content"] for m in tool_messages(main)) == [
            "REPORT alpha: found it in alpha.py line 1", "REPORT beta: found it in beta.py line 1"]
        assert "ALPHA = 1" not in json.dumps(main["messages"])
        assert not any(m.get("tool_call_id", "").startswith("call_") for m in session.messages)

        # The session file keeps the nesting.
        await session.close()
        saved = [e for e in read_events(session.store_path) if e.parent_call_id == "task_a"]
        assert {type(e).__name__ for e in saved} >= {"UserMessage", "AssistantMessage",
                                                      "ToolCall", "ToolResult"}
        line = next(line for line in session.store_path.read_text().splitlines()
                    if '"parent_call_id": "task_a"' in line)
        assert json.loads(line)["parent_call_id"] == "task_a"


async def test_two_helpers_are_in_flight_at_the_same_time(tmp_path):
    (tmp_path / "alpha.py").write_text("ALPHA = 1\n")
    (tmp_path / "beta.py").write_text("BETA = 2\n")

    def responder(request):
        if is_helper(request):
            return hold(text(f"report {helper_task(request)}"))  # both wait for a release
        if request["messages"][-1]["role"] == "user":
            return tool_calls(tool_call("task", {"prompt": "alpha"}, id="a"),
                              tool_call("task", {"prompt": "beta"}, id="b"))
        return text("done")

    with FakeLLM(responder=responder) as llm:
        session = make_session(llm, tmp_path)
        turn = session.send("look at both")
        # The second helper asks the model while the first still waits for its answer.
        assert await asyncio.to_thread(llm.wait_for_requests, 3, 30)
        assert sum(is_helper(r) for r in llm.requests) == 2
        llm.release()
        llm.release()
        await asyncio.wait_for(session.wait_idle(), 30)
        results = {r.call_id: r.output for r in of_type(session, ev.ToolResult)}
        assert results == {"a": "report alpha", "b": "report beta"}
        assert of_type(session, ev.TurnEnded)[-1].turn_id == turn


async def test_a_helpers_reads_pass_the_policy(tmp_path):
    (tmp_path / "secret.txt").write_text("TOKEN=abc\n")

    def responder(request):
        messages = request["messages"]
        if is_helper(request):
            if messages[-1]["role"] == "user":
                return tool_calls(tool_call("read_file", {"path": "secret.txt"}))
            return text("could not read it")
        if messages[-1]["role"] == "user":
            return tool_calls(tool_call("task", {"prompt": "read secret.txt"}, id="t"))
        return text("ok")

    with FakeLLM(responder=responder) as llm:
        session = make_session(llm, tmp_path, deny=["Read(./secret.txt)"])
        await run_turn(session, "what is the token?")
        nested = [r for r in of_type(session, ev.ToolResult) if r.parent_call_id == "t"]
        assert [r.status for r in nested] == ["denied"]
        assert "TOKEN" not in json.dumps(llm.requests)


async def test_a_helper_stops_after_twelve_model_calls(fake_llm, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")

    searches = itertools.count()

    def responder(request):
        if is_helper(request):  # never reports by itself, never repeats itself
            return tool_calls(tool_call("grep", {"pattern": f"x{next(searches)}"}))
        if request["messages"][-1]["role"] == "user":
            return tool_calls(tool_call("task", {"prompt": "explore forever"}, id="t"))
        return text("the helper ran out of calls")

    with FakeLLM(responder=responder) as llm:
        session = make_session(llm, tmp_path)
        end = await run_turn(session, "explore", timeout=60)
        assert end.state == "completed"
        helper_requests = [r for r in llm.requests if is_helper(r)]
        assert len(helper_requests) == MAX_SUBAGENT_CALLS
        assert helper_requests[-1]["messages"][-1] == {"role": "user",
                                                       "content": LAST_CALL_NOTE}
        assert helper_requests[-1]["tool_choice"] == "none"  # words, whatever it wants
        report = [r for r in of_type(session, ev.ToolResult) if r.call_id == "t"][0]
        assert "used all its 12 model calls" in report.output and report.status == "ok"


async def test_a_failing_helper_is_an_error_result(fake_llm, tmp_path):
    from vibe_tui.testing.script import error

    fake_llm.push(tool_calls(tool_call("task", {"prompt": "look"}, id="t")), error(401),
                  text("the helper failed"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "go")
    assert end.state == "completed"
    result = [r for r in of_type(session, ev.ToolResult) if r.call_id == "t"][0]
    assert result.status == "error" and "the helper failed: authentication failed" in result.output


async def test_interrupting_a_helper_closes_its_calls_and_the_turn(tmp_path):
    def responder(request):
        if is_helper(request):
            return hold(text("too late"))
        return tool_calls(tool_call("task", {"prompt": "slow"}, id="t"))

    with FakeLLM(responder=responder) as llm:
        session = make_session(llm, tmp_path)
        session.send("go")
        assert await asyncio.to_thread(llm.wait_for_requests, 2, 30)
        assert session.interrupt()
        await asyncio.wait_for(session.wait_idle(), 10)
        llm.release()
        result = [r for r in of_type(session, ev.ToolResult) if r.call_id == "t"][0]
        assert result.status == "interrupted"
        assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"
