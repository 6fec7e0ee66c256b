"""Saved sessions: the listing, ``vibe-tui sessions``, and resuming (also after SIGKILL)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine_helpers import make_session, of_type, run_turn, wait_until
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.cli import sessions as sessions_cli
from vibe_tui.core.history import UNFINISHED_CALL
from vibe_tui.core.model import litellm_module
from vibe_tui.core.session import Session
from vibe_tui.core.store import read_events, session_summaries
from vibe_tui.testing.script import hold, text, tool_call, tool_calls


@pytest.fixture(autouse=True, scope="module")
def _litellm_imported():
    litellm_module()


async def test_summaries_list_this_workspaces_sessions_newest_first(fake_llm, tmp_path):
    fake_llm.push(text("one"), text("two"), text("three"))
    first = make_session(fake_llm, tmp_path)
    await run_turn(first, "fix the flaky test\nin test_io.py")
    await run_turn(first, "and the other one")
    await first.close()
    second = make_session(fake_llm, tmp_path, mode="plan")
    await run_turn(second, "explain the build")
    await second.close()
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert session_summaries(elsewhere) == []

    newest, oldest = session_summaries(tmp_path)
    assert (newest.id, newest.turns, newest.mode) == (second.id, 1, "plan")
    assert newest.first_prompt == "explain the build"
    assert (oldest.id, oldest.turns, oldest.model) == (first.id, 2, fake_llm.model)
    assert oldest.first_prompt == "fix the flaky test\nin test_io.py"
    assert oldest.started <= oldest.updated

    out = io.StringIO()
    assert sessions_cli.main(["-C", str(tmp_path)], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["ID", "LAST", "USED", "TURNS", "MODEL", "MODE", "FIRST", "PROMPT"]
    assert lines[1].startswith(second.id) and lines[1].endswith("explain the build")
    assert lines[2].endswith("fix the flaky test in test_io.py")
    out = io.StringIO()
    sessions_cli.main(["-C", str(tmp_path), "--json", "-n", "1"], out=out)
    [record] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert record["id"] == second.id and record["turns"] == 1


def test_no_sessions_is_said_plainly(tmp_path):
    out = io.StringIO()
    assert sessions_cli.main(["-C", str(tmp_path)], out=out) == 0
    assert out.getvalue().startswith("no saved sessions for")


async def test_resume_restores_conversation_mode_and_model(fake_llm, tmp_path):
    fake_llm.push(text("first"), text("continued"), text("third"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "remember 7")
    session.set_mode("plan")
    session.set_model("openai/fake-model-b")
    await session.close()

    resumed = Session.resume(Config(api_base=fake_llm.base_url), tmp_path, session.store_path)
    assert (resumed.mode, resumed.model) == ("plan", "openai/fake-model-b")
    assert resumed.messages == session.messages

    # A model chosen on the command line wins, and the record says so.
    again = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url), tmp_path,
                           session.store_path)
    assert again.model == fake_llm.model
    assert of_type(again, ev.ModelChanged)[-1].model == fake_llm.model
    await run_turn(again, "what number?")
    assert fake_llm.requests[-1]["model"] == "fake-model"
    await again.close()


async def test_an_always_grant_lasts_into_the_resumed_session(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch one.txt"})), text("one"),
                  tool_calls(tool_call("bash", {"command": "touch two.txt"})), text("two"))
    session = make_session(fake_llm, tmp_path)
    session.send("make one")
    asked = await wait_for_approval(session)
    session.answer(asked.approval_id, "always", by="user")
    await session.wait_idle()
    grant = asked.grant
    assert grant and grant in session.grants
    await session.close()

    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             tmp_path, session.store_path)
    assert grant in resumed.grants
    await run_turn(resumed, "make two")
    assert (tmp_path / "two.txt").exists()
    assert len(of_type(resumed, ev.ApprovalRequested)) == 1  # only the first run's question
    await resumed.close()


async def test_approval_ids_continue_after_resume(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch one.txt"})),
                  tool_calls(tool_call("bash", {"command": "touch two.txt"})), text("made"),
                  tool_calls(tool_call("bash", {"command": "touch three.txt"})), text("made"))
    session = make_session(fake_llm, tmp_path)
    session.send("make two files")
    for _ in range(2):
        await wait_until(lambda: session.approvals.pending())
        [pending] = session.approvals.pending()
        session.answer(pending.approval_id, "allow", by="tui")
    await session.wait_idle()
    old_ids = [e.approval_id for e in of_type(session, ev.ApprovalRequested)]
    await session.close()

    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url),
                             tmp_path, session.store_path)
    resumed.send("make a third")
    await wait_until(lambda: resumed.approvals.pending())
    [pending] = resumed.approvals.pending()
    assert len(old_ids) == 2 and pending.approval_id not in old_ids
    late = resumed.answer(old_ids[0], "deny", by="web")
    assert (late.accepted, late.by, late.decision) == (False, "tui", "allow")
    resumed.answer(pending.approval_id, "allow", by="tui")
    await resumed.wait_idle()
    assert (tmp_path / "three.txt").exists()
    await resumed.close()


async def wait_for_approval(session: Session) -> ev.ApprovalRequested:
    async for event in session.events():
        if isinstance(event, ev.ApprovalRequested):
            return event
    raise AssertionError("the session closed without asking")


# ---- SIGKILL in the middle of a turn --------------------------------------------------


def start_cli(repo: Path, llm, home: Path, *args: str) -> subprocess.Popen:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home),
           "VIBE_TUI_HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.Popen(
        [sys.executable, "-m", "vibe_tui", "--model", llm.model, "--api-base", llm.base_url,
         *args], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def assert_valid_history(messages: list[dict]) -> None:
    open_ids: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_ids
            open_ids.remove(message["tool_call_id"])
        else:
            assert not open_ids
            open_ids = [c["id"] for c in message.get("tool_calls") or []]
    assert not open_ids


def session_file(home: Path) -> Path:
    [path] = [p for p in (home / "data" / "sessions").glob("*/*.jsonl")
              if not p.name.endswith(".calls.jsonl")]
    return path


# Two CLI processes each import LiteLLM: on a loaded CI machine that alone takes a minute.
@pytest.mark.timeout(420)
def test_killed_while_waiting_for_the_model_resumes_with_a_valid_history(fake_llm, tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    (repo / "notes.txt").write_text("the answer is 42\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"}, id="r1")),
                  hold(text("never sent")))
    process = start_cli(repo, fake_llm, home, "-p", "what is in notes.txt?")
    assert fake_llm.wait_for_requests(2, timeout=180)  # the second call is held
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)

    fake_llm.push(text("It says the answer is 42."))
    code, out, err = finish(start_cli(repo, fake_llm, home, "-p", "go on", "--continue",
                                      "--output-format", "jsonl"))
    assert code == 0, err
    sent = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert "the answer is 42" in sent[3]["content"]
    assert_valid_history(sent[1:])
    events = read_events(session_file(home))
    ended = [e for e in events if isinstance(e, ev.TurnEnded)]
    assert [(e.turn_id, e.state) for e in ended] == [(1, "interrupted"), (2, "completed")]
    ids = [e.id for e in events]
    assert ids == sorted(set(ids))


@pytest.mark.timeout(420)
def test_killed_while_a_command_runs_resumes_with_the_call_answered(fake_llm, tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    marker = "63.5151"
    fake_llm.push(tool_calls(tool_call("bash", {"command": f"sleep {marker}"}, id="b1")))
    process = start_cli(repo, fake_llm, home, "-p", "wait a minute", "--mode", "yolo")
    try:
        started = time.monotonic()
        while not sleeping(marker):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() - started < 180, "the command never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        for pid in sleeping(marker):
            os.kill(pid, signal.SIGKILL)

    fake_llm.push(text("The command was cut off."))
    code, out, err = finish(start_cli(repo, fake_llm, home, "-p", "what happened?",
                                      "--continue"))
    assert code == 0, err
    sent = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[3] == {"role": "tool", "tool_call_id": "b1", "content": UNFINISHED_CALL}
    events = read_events(session_file(home))
    closed = [e for e in events if isinstance(e, ev.ToolResult) and e.call_id == "b1"]
    assert [c.status for c in closed] == ["interrupted"]


def sleeping(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (a sandbox may renumber pids)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            state = Path(f"/proc/{entry}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and b"sleep" in cmdline and state != "Z":
            found.append(int(entry))
    return found


async def test_a_restored_turn_left_open_is_closed_once(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    session.emit(ev.TurnStarted(prompt="go"), turn_id=1)
    session.emit(ev.UserMessage(text="go"), turn_id=1)
    session.emit(ev.AssistantMessage(text="", tool_calls=[
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]),
        turn_id=1)
    session.emit(ev.ApprovalRequested(approval_id="ap1", call_id="c1", tool="read_file",
                                      args={}, reason="asks"), turn_id=1)
    await session.close()
    config = Config(model=fake_llm.model, api_base=fake_llm.base_url)
    first = Session.resume(config, tmp_path, session.store_path)
    await first.close()
    second = Session.resume(config, tmp_path, session.store_path)
    await second.close()
    events = read_events(session.store_path)
    assert [e.state for e in events if isinstance(e, ev.TurnEnded)] == ["interrupted"]
    assert [(e.decision, e.by) for e in events if isinstance(e, ev.ApprovalResolved)] == [
        ("deny", "interrupt")]
    assert second.messages[-1] == {"role": "tool", "tool_call_id": "c1",
                                   "content": UNFINISHED_CALL}
