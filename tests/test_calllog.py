"""The call log: one JSON line per model call and per tool call, beside the session file."""

from __future__ import annotations

import asyncio

import pytest

from engine_helpers import make_session, of_type, wait_until
from vibe_tui.core import events as ev
from vibe_tui.core.calllog import read_call_log
from vibe_tui.core.model import litellm_module
from vibe_tui.core.store import list_sessions
from vibe_tui.testing.script import error, text, tool_call, tool_calls


@pytest.fixture(autouse=True, scope="module")
def _litellm_imported():
    litellm_module()


async def test_model_and_tool_calls_are_logged_with_their_decisions(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(
        error(429, "slow down", retry_after=0),
        tool_calls(tool_call("read_file", {"path": "a.txt"}, id="r"),
                   tool_call("write_file", {"path": "b.txt", "content": "beta\n"}, id="w"),
                   tool_call("write_file", {"path": "c.txt", "content": "no\n"}, id="d"),
                   tool_call("teleport", {}, id="u")),
        text("done, " * 30),
    )
    session = make_session(fake_llm, tmp_path)
    session.send("read a, write b and c")
    for call_id, decision in (("w", "allow"), ("d", "deny")):
        await wait_until(lambda: any(e.call_id == call_id
                                     for e in of_type(session, ev.ApprovalRequested)))
        request = [e for e in of_type(session, ev.ApprovalRequested) if e.call_id == call_id][0]
        session.answer(request.approval_id, decision, by="tui")
    await asyncio.wait_for(session.wait_idle(), 30)
    await session.close()

    path = session.call_log_path
    assert path == session.store_path.with_name(f"{session.id}.calls.jsonl")
    assert list_sessions(tmp_path) == [session.store_path]  # not mistaken for a session
    records = read_call_log(path)
    assert all(r["session_id"] == session.id and r["turn_id"] == 1 for r in records)

    models = [r for r in records if r["kind"] == "model"]
    assert [r["error"] is None for r in models] == [False, True, True]
    assert "slow down" in models[0]["error"] and models[0]["prompt_tokens"] == 0
    for record in models[1:]:
        assert record["model"] == fake_llm.model and record["purpose"] == "turn"
        assert record["prompt_tokens"] > 0 and record["completion_tokens"] > 0
        assert record["cached_tokens"] == 0 and record["cost"] is None  # a local model
        assert 0 < record["first_token_s"] <= record["latency_s"]
        assert record["estimated_prompt_tokens"] > 0

    tools = {r["call_id"]: r for r in records if r["kind"] == "tool"}
    assert (tools["r"]["decision"], tools["r"]["answered_by"]) == ("allow", "policy")
    assert tools["r"]["args"] == {"path": "a.txt"} and tools["r"]["status"] == "ok"
    assert tools["r"]["output_chars"] == len(of_type(session, ev.ToolResult)[0].output)
    assert (tools["w"]["decision"], tools["w"]["answered_by"], tools["w"]["status"]) == (
        "ask", "tui", "ok")
    assert (tools["d"]["answered_by"], tools["d"]["status"]) == ("tui", "denied")
    assert tools["u"]["decision"] is None and tools["u"]["status"] == "error"
    assert all(r["duration_s"] >= 0 for r in tools.values())


async def test_a_session_that_is_not_saved_logs_nothing(fake_llm, tmp_path):
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session

    fake_llm.push(text("hi"))
    session = Session(Config(model=fake_llm.model, api_base=fake_llm.base_url), tmp_path,
                      persist=False)
    session.send("hello")
    await session.wait_idle()
    assert session.call_log_path is None
    assert of_type(session, ev.TurnEnded)[-1].state == "completed"
