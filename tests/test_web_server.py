"""The web view's server: event streams with replay, the doors (message, answer, stop),
many tabs at once, and its life on the caller's event loop. Real server, real HTTP."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
from dataclasses import dataclass, field

import httpx
import pytest

from engine_helpers import make_session, of_type, wait_until
from vibe_tui.core import events as ev
from vibe_tui.testing.script import hold, text, tool_call, tool_calls
from vibe_tui.web import WebView


@dataclass
class Received:
    """What one client read from /events."""

    retry: int | None = None
    events: list[dict] = field(default_factory=list)

    @property
    def ids(self) -> list[int]:
        return [e["id"] for e in self.events]


async def read_stream(client: httpx.AsyncClient, view: WebView, *, until, received=None,
                      last_event_id: int | None = None, after: int | None = None) -> Received:
    """Follow /events until ``until(event)`` is true for an event read. Checks that each
    SSE id is the id of the event it carries."""
    received = received if received is not None else Received()
    params = {"token": view.token}
    if after is not None:
        params["after"] = str(after)
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    async with client.stream("GET", "/events", params=params, headers=headers) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        fields: dict[str, str] = {}
        async for line in reply.aiter_lines():
            if line:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
                continue
            if "retry" in fields:
                received.retry = int(fields["retry"])
            if "data" in fields:
                event = json.loads(fields["data"])
                assert fields["id"] == str(event["id"])
                received.events.append(event)
                if until(event):
                    return received
            fields = {}
    return received


def turn_ended(event: dict) -> bool:
    return event["type"] == "turn_ended"


@pytest.fixture(scope="module", autouse=True)
def litellm_loaded() -> None:
    """LiteLLM's first import takes seconds: pay it before a test waits on a turn."""
    from vibe_tui.core.model import litellm_module

    litellm_module()


@pytest.fixture
async def session(fake_llm, tmp_path):
    session = make_session(fake_llm, tmp_path)
    yield session
    await session.close()


@pytest.fixture
async def view(session):
    view = WebView(session, port=0)
    await view.start()
    yield view
    await view.stop()


@pytest.fixture
async def client(view):
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{view.port}", trust_env=False,
                                 timeout=30, headers={"X-Token": view.token}) as client:
        yield client


def last_id(session) -> int:
    return session.event_log[-1].id


# ---- event streams ------------------------------------------------------------------


async def test_the_stream_replays_everything_with_event_ids_and_a_retry_delay(
        fake_llm, session, view, client):
    fake_llm.push(text("hello there"))
    session.send("hi")
    await session.wait_idle()
    received = await read_stream(client, view, until=turn_ended)
    assert received.retry == 1000
    assert received.ids == [e.id for e in session.event_log]
    assert received.events[-1] == session.event_log[-1].to_json()


async def test_a_reconnect_with_last_event_id_misses_nothing_and_repeats_nothing(
        fake_llm, session, view, client):
    fake_llm.push(text("x" * 240, chunk_size=4, delay=0.05))  # 3 s: about 30 deltas
    session.send("a long answer")
    first = await read_stream(
        client, view, until=lambda e: e["type"] == "text_delta" and e["text"] and e["id"] > 10)
    seen = first.ids[-1]
    # Events go on while the tab is away.
    await wait_until(lambda: last_id(session) > seen + 10)
    # The header wins over the ?after= the page's first connect used.
    second = await read_stream(client, view, until=turn_ended, last_event_id=seen, after=0)
    assert second.ids[0] == seen + 1
    combined = first.ids + second.ids
    assert combined == [e.id for e in session.event_log]
    assert "".join(e["text"] for e in first.events + second.events
                   if e["type"] == "text_delta") == "x" * 240


async def test_a_first_connect_can_start_after_a_known_event(fake_llm, session, view, client):
    fake_llm.push(text("one"), text("two"))
    session.send("first")
    await session.wait_idle()
    before = last_id(session)
    session.send("second")
    await session.wait_idle()
    received = await read_stream(client, view, until=turn_ended, after=before)
    assert received.ids == [e.id for e in session.event_log if e.id > before]
    assert {e["turn_id"] for e in received.events} == {2}


async def test_a_malformed_last_event_id_is_refused(view, client):
    reply = await client.get("/events", headers={"Last-Event-ID": "abc"})
    assert reply.status_code == 400


async def test_twenty_tabs_on_a_long_turn_each_get_every_event_once(
        fake_llm, session, view, client):
    fake_llm.push(tool_calls(tool_call("list_dir", {"path": "."})),
                  text("y" * 300, chunk_size=3, delay=0.04))  # deltas are sent 100 ms apart
    start = last_id(session)
    session.send("a long turn")
    # Tabs connect while the turn streams: each joins at a different point of it, and
    # must still get every event after `start`, from the backlog or live, exactly once.
    tabs = [asyncio.create_task(read_stream(client, view, until=turn_ended, after=start))
            for _ in range(20)]
    received = await asyncio.wait_for(asyncio.gather(*tabs), 60)
    expected = [e.id for e in session.event_log if e.id > start]
    assert len(expected) > 40
    for tab in received:
        assert tab.ids == expected


# ---- the doors ----------------------------------------------------------------------


async def test_message_starts_a_turn_then_steers_it(fake_llm, session, view, client):
    fake_llm.push(hold(text("first answer")), text("second answer"))
    reply = await client.post("/message", json={"text": "start"})
    assert reply.json() == {"result": "started", "turn": 1}
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    reply = await client.post("/message", json={"text": "also this"})
    assert reply.json() == {"result": "steered", "turn": 1}
    fake_llm.release()
    await session.wait_idle()
    steering = [e for e in of_type(session, ev.UserMessage) if e.steering]
    assert [e.text for e in steering] == ["also this"]
    assert any(m.get("content") == "also this" for m in fake_llm.requests[1]["messages"])


async def test_message_needs_a_text(view, client):
    for body in ({}, {"text": ""}, {"text": "   "}, {"text": 3}, ["hi"]):
        reply = await client.post("/message", json=body)
        assert reply.status_code == 400, body
    assert (await client.post("/message", content=b"not json")).status_code == 400


async def test_post_stop_interrupts_the_running_turn(fake_llm, session, view, client):
    fake_llm.push(hold(text("never shown")))
    session.send("wait")
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    reply = await client.post("/stop")
    assert reply.json() == {"result": "stopped"}
    await session.wait_idle()
    assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"
    assert (await client.post("/stop")).json() == {"result": "nothing to stop"}
    fake_llm.release()


async def approval(fake_llm, session, command="touch made.txt") -> ev.ApprovalRequested:
    fake_llm.push(tool_calls(tool_call("bash", {"command": command})), text("done"))
    session.send("make a file")
    await wait_until(lambda: of_type(session, ev.ApprovalRequested))
    return of_type(session, ev.ApprovalRequested)[-1]


async def test_the_web_answers_first_and_the_terminal_learns_it(
        fake_llm, session, view, client, tmp_path):
    asked = await approval(fake_llm, session)
    reply = await client.post("/answer", json={"id": asked.approval_id, "turn": asked.turn_id,
                                               "decision": "allow"})
    assert reply.json() == {"result": "done"}
    late = session.answer(asked.approval_id, "deny", by="tui")
    assert not late.accepted and (late.by, late.decision) == ("web", "allow")
    await session.wait_idle()
    assert (tmp_path / "made.txt").exists()
    resolved = of_type(session, ev.ApprovalResolved)
    assert [(r.decision, r.by) for r in resolved] == [("allow", "web")]


async def test_the_terminal_answers_first_and_the_web_is_told(
        fake_llm, session, view, client, tmp_path):
    asked = await approval(fake_llm, session)
    assert session.answer(asked.approval_id, "deny", by="tui").accepted
    reply = await client.post("/answer", json={"id": asked.approval_id, "turn": asked.turn_id,
                                               "decision": "allow"})
    assert reply.status_code == 409
    assert reply.json() == {"result": "the terminal answered first: deny", "decision": "deny",
                            "by": "tui"}
    await session.wait_idle()
    assert not (tmp_path / "made.txt").exists()
    assert [r.by for r in of_type(session, ev.ApprovalResolved)] == ["tui"]


async def test_a_denial_from_the_web_carries_its_note(fake_llm, session, view, client):
    asked = await approval(fake_llm, session)
    reply = await client.post("/answer", json={"id": asked.approval_id, "turn": asked.turn_id,
                                               "decision": "deny", "note": "use write_file"})
    assert reply.json() == {"result": "done"}
    await session.wait_idle()
    resolved = of_type(session, ev.ApprovalResolved)[0]
    assert (resolved.decision, resolved.by, resolved.note) == ("deny", "web", "use write_file")
    tool_message = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"][0]
    assert "use write_file" in tool_message["content"]


async def test_answers_that_do_not_fit_an_open_question_are_refused(
        fake_llm, session, view, client):
    asked = await approval(fake_llm, session)
    cases = [
        ({"id": "ap99", "turn": asked.turn_id, "decision": "allow"}, 404),
        ({"id": asked.approval_id, "turn": asked.turn_id + 1, "decision": "allow"}, 409),
        ({"id": asked.approval_id, "turn": asked.turn_id, "decision": "maybe"}, 400),
        ({"id": asked.approval_id, "decision": "allow"}, 400),
        ({"id": asked.approval_id, "turn": asked.turn_id, "decision": "deny", "note": 5}, 400),
    ]
    for body, status in cases:
        reply = await client.post("/answer", json=body)
        assert reply.status_code == status, body
    # None of them answered: the question is still open.
    assert of_type(session, ev.ApprovalResolved) == []
    session.interrupt()
    await session.wait_idle()


# ---- life on the caller's loop ------------------------------------------------------


async def test_stop_ends_open_streams_and_closes_the_port(session):
    view = WebView(session, port=0)
    await view.start()
    port = view.port
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", trust_env=False,
                                 timeout=30) as client:
        seen = Received()
        tab = asyncio.create_task(read_stream(client, view, until=lambda e: False,
                                              received=seen))
        await wait_until(lambda: seen.events)  # the tab is connected and following
        await asyncio.wait_for(view.stop(), 10)
        # The tab's stream ended cleanly rather than holding the server up.
        received = await asyncio.wait_for(tab, 10)
        assert received.retry == 1000 and received.ids == [1]
        with pytest.raises(httpx.ConnectError):
            await client.get("/")


async def test_a_restarted_view_keeps_its_port_and_token(session):
    view = WebView(session, port=0)
    url = await view.start()
    await view.stop()
    assert await view.start() == url
    async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
        reply = await client.post(f"http://127.0.0.1:{view.port}/stop",
                                  headers={"X-Token": view.token})
        assert reply.status_code == 200
    await view.stop()


async def test_a_taken_port_moves_to_the_next_free_one(session):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        view = WebView(session, port=port)
        await view.start()
        assert port < view.port < port + 20
        assert f":{view.port}/" in view.url
        await view.stop()
    finally:
        taken.close()


async def test_starting_installs_no_signal_handler(session):
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    view = WebView(session, port=0)
    await view.start()
    try:
        after = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        assert after == before  # Ctrl+C stays the host program's (the TUI stops a turn)
    finally:
        await view.stop()


SERVE = """
import asyncio, sys
from pathlib import Path
from vibe_tui.config.settings import Config
from vibe_tui.core.session import Session
from vibe_tui.web import serve_forever

async def main():
    session = Session(Config(model=sys.argv[1], api_base=sys.argv[2]), Path(sys.argv[3]))
    return await serve_forever(session, 0)

sys.exit(asyncio.run(main()))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_serve_prints_the_link_and_exits_on_a_signal_with_a_tab_open(
        fake_llm, tmp_path, sig):
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SERVE, fake_llm.model, fake_llm.base_url, str(tmp_path),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert line.startswith("vibe-tui web view: http://127.0.0.1:")
        url = httpx.URL(line.split(": ", 1)[1].strip())
        token = url.params["token"]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{url.port}", trust_env=False,
                                     timeout=30, headers={"X-Token": token}) as client:
            async with client.stream("GET", "/events") as stream:
                lines = stream.aiter_lines()
                assert await anext(lines) == "retry: 1000"
                process.send_signal(sig)
                # The open tab does not hold up the exit; its stream just ends.
                rest = [line async for line in lines]
                assert all(not line.startswith("data:") or "session_started" in line
                           for line in rest)
            code = await asyncio.wait_for(process.wait(), 30)
        assert code == 0, (await process.stderr.read()).decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_vibe_tui_serve_prints_the_link_and_stops_on_sigint(tmp_path):
    import os
    import re
    import signal
    import subprocess
    import sys

    env = {**os.environ, "VIBE_TUI_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([sys.executable, "-m", "vibe_tui", "serve", "--port", "0",
                             "--model", "openai/fake"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first_line = proc.stdout.readline()
        assert re.match(r"vibe-tui web view: http://127\.0\.0\.1:\d+/\?token=\S+", first_line)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
