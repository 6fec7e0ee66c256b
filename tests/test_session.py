"""Session doors: approvals, interrupt, steering, events replay, the JSONL record, resume."""

from __future__ import annotations

import asyncio
import json
import os
import secrets

from engine_helpers import ended, make_session, of_type, run_turn, tool_messages, wait_until
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.session import Session
from vibe_tui.core.store import find_session, read_events
from vibe_tui.testing.script import hold, text, tool_call, tool_calls


def pending_approvals(session):
    resolved = {e.approval_id for e in of_type(session, ev.ApprovalResolved)}
    return [e for e in of_type(session, ev.ApprovalRequested) if e.approval_id not in resolved]


async def test_an_edit_asks_and_runs_once_allowed(fake_llm, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.py"})))
    fake_llm.push(tool_calls(tool_call("edit_file", {"path": "a.py", "old_string": "x = 1",
                                                     "new_string": "x = 2"})), text("done"))
    session = make_session(fake_llm, tmp_path)
    turn = session.send("change x")
    await wait_until(lambda: pending_approvals(session))
    request = pending_approvals(session)[0]
    assert request.tool == "edit_file" and "+x = 2" in request.diff
    assert (tmp_path / "a.py").read_text() == "x = 1\n"  # nothing before the answer
    outcome = session.answer(request.approval_id, "allow", by="tui")
    assert outcome.accepted
    late = session.answer(request.approval_id, "deny", by="web")
    assert not late.accepted and late.by == "tui" and "already settled" in late.message
    await session.wait_idle()
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    resolved = of_type(session, ev.ApprovalResolved)
    assert [(r.decision, r.by) for r in resolved] == [("allow", "tui")]
    assert of_type(session, ev.TurnEnded)[-1].turn_id == turn


async def test_denial_with_a_note_reaches_the_model(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch made.txt"})), text("ok"))
    session = make_session(fake_llm, tmp_path)
    session.send("make a file")
    await wait_until(lambda: pending_approvals(session))
    session.answer(pending_approvals(session)[0].approval_id, "deny", note="use write_file")
    await session.wait_idle()
    assert not (tmp_path / "made.txt").exists()
    assert "use write_file" in tool_messages(fake_llm.requests[1])[0]["content"]
    assert of_type(session, ev.ToolResult)[0].status == "denied"


async def test_always_grants_for_the_session_and_settles_covered_approvals(fake_llm, tmp_path):
    calls = [tool_call("bash", {"command": f"touch f{n}.txt"}, id=f"t{n}") for n in range(2)]
    fake_llm.push(tool_calls(*calls), tool_calls(tool_call("bash", {"command": "touch f9.txt"})),
                  text("done"))
    session = make_session(fake_llm, tmp_path)
    session.send("touch files")
    await wait_until(lambda: len(pending_approvals(session)) == 2)
    first = pending_approvals(session)[0]
    assert first.grant == "Bash(touch:*)"
    session.answer(first.approval_id, "always", by="tui")
    await asyncio.wait_for(session.wait_idle(), 20)
    assert all((tmp_path / f"f{n}.txt").exists() for n in (0, 1, 9))
    resolved = of_type(session, ev.ApprovalResolved)
    assert [r.decision for r in resolved] == ["always", "allow"]  # the third never asked
    assert len(of_type(session, ev.ApprovalRequested)) == 2


async def test_interrupt_kills_the_process_and_the_session_goes_on(fake_llm, tmp_path):
    # A sleep with a unique length finds the process on the host, whether or not the
    # command ran in a sandbox with its own pid numbering.
    marker = f"61.{secrets.randbelow(10**6):06d}"  # unique to this run
    fake_llm.push(tool_calls(tool_call("bash", {"command": f"sleep {marker}; echo never"})))
    fake_llm.push(text("second turn fine"))
    session = make_session(fake_llm, tmp_path, mode="yolo")
    turn = session.send("sleep")
    await wait_until(lambda: _pids_running(marker))
    assert session.interrupt()
    await asyncio.wait_for(session.wait_idle(), 30)
    end = of_type(session, ev.TurnEnded)[-1]
    assert end.turn_id == turn and end.state == "interrupted"
    result = of_type(session, ev.ToolResult)[-1]
    assert result.status == "interrupted" and "interrupted by the user" in result.output
    await wait_until(lambda: not _pids_running(marker), 5)
    end2 = await run_turn(session, "are you there?")
    assert end2.state == "completed"
    assert "interrupted by the user" in tool_messages(fake_llm.requests[-1])[0]["content"]


async def test_interrupt_settles_waiting_approvals_as_denied(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch x"})))
    session = make_session(fake_llm, tmp_path)
    session.send("touch")
    await wait_until(lambda: pending_approvals(session))
    session.interrupt()
    await session.wait_idle()
    resolved = of_type(session, ev.ApprovalResolved)[-1]
    assert (resolved.decision, resolved.by) == ("deny", "interrupt")
    assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"
    assert not (tmp_path / "x").exists()


async def test_interrupt_mid_stream_keeps_the_partial_text(fake_llm, tmp_path):
    fake_llm.push(text("word " * 200, chunk_size=5, delay=0.02))
    session = make_session(fake_llm, tmp_path)
    session.send("talk")
    await wait_until(lambda: len(of_type(session, ev.TextDelta)) >= 3)
    session.interrupt()
    await session.wait_idle()
    partial = of_type(session, ev.AssistantMessage)[-1]
    assert partial.partial and partial.text.startswith("word word")
    assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"


async def test_send_during_a_turn_steers_it_before_the_next_model_call(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(hold(tool_calls(tool_call("read_file", {"path": "a.txt"}))), text("steered"))
    session = make_session(fake_llm, tmp_path)
    turn = session.send("read a.txt")
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    assert session.send("also mention beta") == turn
    fake_llm.release()
    await asyncio.wait_for(session.wait_idle(), 20)
    steer = [e for e in of_type(session, ev.UserMessage) if e.steering]
    assert [e.text for e in steer] == ["also mention beta"]
    messages = fake_llm.requests[1]["messages"]
    assert messages[-1] == {"role": "user", "content": "also mention beta"}
    assert messages[-2]["role"] == "tool"  # after the result, never between call and result
    assert len(of_type(session, ev.TurnStarted)) == 1


async def test_a_steering_line_goes_with_the_turn_the_user_stopped(fake_llm, tmp_path):
    fake_llm.push(hold(text("never read")), text("second answer"))
    session = make_session(fake_llm, tmp_path)
    session.send("first task")
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    session.send("a steer for the first task")
    assert session.interrupt()
    fake_llm.release()
    await asyncio.wait_for(session.wait_idle(), 20)
    end = await run_turn(session, "a new task")
    assert end.state == "completed"
    users = [m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"]
    assert users[-1] == "a new task"
    assert not any("a steer for the first task" in u for u in users)
    assert not [e for e in of_type(session, ev.UserMessage) if e.steering]
    notices = [e.text for e in of_type(session, ev.Notice)]
    assert "not sent, the turn was stopped: a steer for the first task" in notices


async def test_steering_after_the_final_answer_streams_continues_the_turn(fake_llm, tmp_path):
    fake_llm.push(hold(text("first answer")), text("answer with the steer"))
    session = make_session(fake_llm, tmp_path)
    session.send("hi")
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    session.send("and one more thing")
    fake_llm.release()
    await asyncio.wait_for(session.wait_idle(), 20)
    assert len(fake_llm.requests) == 2
    assert fake_llm.requests[1]["messages"][-1]["content"] == "and one more thing"


async def test_events_replay_then_follow_live(fake_llm, tmp_path):
    fake_llm.push(text("one"), text("two"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "first")
    seen: list[ev.Event] = []

    async def follow():
        async for event in session.events(after=3):
            seen.append(event)
            if isinstance(event, ev.TurnEnded) and event.turn_id == 2:
                return

    follower = asyncio.create_task(follow())
    await asyncio.sleep(0)
    await run_turn(session, "second")
    await asyncio.wait_for(follower, 5)
    ids = [e.id for e in seen]
    assert ids == sorted(ids) and ids[0] == 4 and len(ids) == len(set(ids))
    assert ids == [e.id for e in session.event_log if e.id > 3]


async def test_every_event_is_in_the_jsonl_file_and_resume_rebuilds_the_conversation(
        fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.txt"})), text("it says alpha"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "read a.txt")
    await session.close()
    path = find_session(tmp_path, None)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["id"] for line in lines] == [e.id for e in session.event_log]
    assert {line["type"] for line in lines} >= {"turn_started", "tool_call", "tool_result",
                                                "turn_ended", "text_delta", "usage"}

    fake_llm.push(text("continuing"))
    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             tmp_path, path)
    assert resumed.messages == session.messages
    assert resumed.id == session.id
    await run_turn(resumed, "what did it say?")
    sent = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    ids = [e.id for e in read_events(path)]
    assert ids == sorted(set(ids))  # new events continue the numbering in the same file


async def test_a_crash_between_call_and_result_still_resumes_validly(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    session.emit(ev.UserMessage(text="hi"))
    session.emit(ev.AssistantMessage(text="", tool_calls=[
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]))
    await session.close()
    fake_llm.push(text("back"))
    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             tmp_path, session.store_path)
    end = await run_turn(resumed, "continue")
    assert end.state == "completed"
    tool = tool_messages(fake_llm.requests[-1])
    assert tool[0]["tool_call_id"] == "c1"


async def test_headless_session_turns_asks_into_denials(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch x"})), text("could not"))
    session = Session(Config(model=fake_llm.model, api_base=fake_llm.base_url), tmp_path,
                      interactive=False)
    end = await run_turn(session, "touch x")
    assert end.state == "completed"
    assert not (tmp_path / "x").exists()
    resolved = of_type(session, ev.ApprovalResolved)[0]
    assert (resolved.decision, resolved.by) == ("deny", "headless")
    assert "headless" in tool_messages(fake_llm.requests[1])[0]["content"]


async def test_deny_rule_wins_in_yolo_mode(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "rm -rf sub"})), text("ok"))
    (tmp_path / "sub").mkdir()
    session = make_session(fake_llm, tmp_path, mode="yolo", deny=["Bash(rm:*)"])
    await run_turn(session, "delete")
    assert (tmp_path / "sub").exists()
    assert of_type(session, ev.ToolResult)[0].status == "denied"


async def test_mode_and_model_changes_are_events(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    session.set_mode("plan")
    session.set_model("openai/other")
    assert [e.type for e in session.event_log[-2:]] == ["mode_changed", "model_changed"]
    assert session.model_settings().model == "openai/other"


def _pids_running(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as handle:
                state = handle.read().split(")")[-1].split()[0]
        except OSError:
            continue
        if marker in cmdline and "sleep" in cmdline and state != "Z":
            found.append(int(entry))
    return found


async def test_the_local_model_works_without_helpers_unless_asked(fake_llm, tmp_path):
    """The 1.5B model handed its tasks to helpers that looped: no task tool for it by
    default, and its system prompt does not mention one; the setting brings both back."""
    fake_llm.push(text("hi"), text("hi again"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "hello")
    listed = [t["function"]["name"] for t in fake_llm.requests[0]["tools"]]
    assert "task" in listed and "the task tool" in fake_llm.requests[0]["messages"][0]["content"]
    session.configure(local_model=True, small_model=False)
    await run_turn(session, "hello")
    listed = [t["function"]["name"] for t in fake_llm.requests[1]["tools"]]
    assert "task" not in listed and "read_file" in listed
    assert "the task tool" not in fake_llm.requests[1]["messages"][0]["content"]
    session.configure(subagents=True)
    assert "task" in session.main_scope().tools


async def test_a_tool_result_carries_its_kind_and_meta_into_the_log_and_back(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.txt"})), text("alpha"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "read a.txt")
    await session.close()
    result = of_type(session, ev.ToolResult)[0]
    assert (result.kind, result.meta) == ("file", {"path": "a.txt"})
    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             tmp_path, session.store_path)
    assert [e for e in resumed.event_log if isinstance(e, ev.ToolResult)] == [result]


def test_an_old_tool_result_line_without_kind_or_meta_still_loads():
    old = {"type": "tool_result", "id": 5, "turn_id": 1, "ts": 0.0, "call_id": "c1",
           "tool": "bash", "output": "hi", "status": "ok", "exit_code": 0}
    event = ev.event_from_json(old)
    assert isinstance(event, ev.ToolResult)
    assert (event.kind, event.meta, event.output) == ("other", {}, "hi")


def test_an_old_approval_line_that_named_always_in_by_still_loads():
    old = {"type": "approval_resolved", "id": 9, "turn_id": 1, "ts": 0.0, "approval_id": "ap2",
           "call_id": "c2", "decision": "allow", "by": "tui (always)"}
    event = ev.event_from_json(old)
    assert (event.by, event.covered_by, event.answered_by) == ("tui", "always", "tui (always)")
    plain = ev.event_from_json({**old, "by": "web"})
    assert (plain.by, plain.covered_by) == ("web", None)


async def test_an_interrupt_while_the_first_context_is_gathered_ends_the_turn(
        fake_llm, tmp_path, monkeypatch):
    """Esc during the repo map (the first turn's slow part) stops the turn: no model call."""
    from vibe_tui.core.loop import AgentLoop

    mapping = asyncio.Event()

    async def slow_map(self, prompt):
        mapping.set()
        await asyncio.Event().wait()  # a map that would take as long as the repo is big

    monkeypatch.setattr(AgentLoop, "_first_turn_context", slow_map)
    fake_llm.push(text("should not be asked"))
    session = make_session(fake_llm, tmp_path)
    turn = session.send("map this")
    await asyncio.wait_for(mapping.wait(), 10)
    assert session.interrupt()
    await asyncio.wait_for(session.wait_idle(), 10)
    assert ended(session, turn).state == "interrupted"
    assert fake_llm.requests == []
    assert of_type(session, ev.UserMessage)[-1].text == "map this"
