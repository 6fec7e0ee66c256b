"""The Session owns the model runtime: with no model configured it starts the local one,
holds what is sent meanwhile, and reports the start as events. A fake start stands in for
llama.cpp here (tests/test_local_default.py runs the real one when its weights are cached)."""

from __future__ import annotations

import asyncio
import io
import json

from engine_helpers import fake_local_start, of_type, wait_until
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.model_runtime import needs_local_model
from vibe_tui.core.session import Session
from vibe_tui.core.store import read_events
from vibe_tui.testing.script import text


def unconfigured_session(tmp_path, llm, **start) -> Session:
    session = Session(Config(model_retry_base_s=0.01), tmp_path, tools=[])
    session.model_runtime.start_server = fake_local_start(llm, **start)
    return session


async def test_messages_sent_while_the_model_starts_are_sent_in_order_once_it_is_ready(
        fake_llm, tmp_path):
    fake_llm.push(text("four"))
    ready = asyncio.Event()
    session = unconfigured_session(tmp_path, fake_llm, ready=ready)
    assert needs_local_model(session.model, session.config)
    booting = asyncio.create_task(session.start_model())
    await wait_until(lambda: session.model_runtime.starting)
    first = session.send("what is 2+2?")
    second = session.send("in words, please")
    assert first == second == 1 and not session.running and not of_type(session, ev.UserMessage)
    ready.set()
    assert await booting
    await wait_until(lambda: of_type(session, ev.TurnEnded))
    await session.wait_idle()
    users = of_type(session, ev.UserMessage)
    assert [(u.text, u.steering) for u in users] == [("what is 2+2?", False),
                                                     ("in words, please", True)]
    assert of_type(session, ev.TurnEnded)[0].state == "completed"
    assert session.model.startswith("openai/")
    assert session.config.local_model and session.config.api_key == "local-server-key"
    notices = [n.text for n in of_type(session, ev.Notice)]
    assert "waiting for the local model, then sent: what is 2+2?" in notices
    server = session.model_runtime.start_server.servers[0]
    await session.close()
    assert not server.running  # the session stops the server it started


async def test_the_start_is_reported_as_events_in_the_log(fake_llm, tmp_path):
    session = unconfigured_session(tmp_path, fake_llm)
    assert await session.start_model()
    assert await session.start_model()  # once: the second call starts nothing
    started = of_type(session, ev.ModelStarting)
    assert len(started) == 1 and started[0].cause == "unconfigured"
    progress = [(p.phase, p.done, p.total) for p in of_type(session, ev.ModelProgress)]
    # Throttled, but a new phase and the end of one always show.
    assert progress == [("download", 50, 100), ("download", 100, 100), ("start", 0, 0)]
    ready = of_type(session, ev.ModelReady)
    assert [r.model for r in ready] == [session.model] and session.model.startswith("openai/")
    changed = of_type(session, ev.ModelChanged)
    assert changed and changed[-1].id < ready[0].id  # the session uses it before it says so
    await session.close()
    logged = [e.type for e in read_events(session.store_path)]
    assert [t for t in logged if t.startswith("model_")] == [
        "model_starting", "model_progress", "model_progress", "model_progress",
        "model_changed", "model_ready"]


async def test_progress_within_a_phase_is_throttled(fake_llm, tmp_path):
    many = [("download", done, 1000) for done in range(1, 1001)]
    session = unconfigured_session(tmp_path, fake_llm, phases=many)
    assert await session.start_model()
    progress = of_type(session, ev.ModelProgress)
    assert 2 <= len(progress) <= 3 and (progress[-1].done, progress[-1].total) == (1000, 1000)
    await session.close()


async def test_a_failed_start_reports_the_messages_it_held(fake_llm, tmp_path):
    ready = asyncio.Event()
    session = unconfigured_session(tmp_path, fake_llm, ready=ready, error="no disk space")
    booting = asyncio.create_task(session.start_model())
    await wait_until(lambda: session.model_runtime.starting)
    session.send("fix the bug")
    session.send("and add a test")
    ready.set()
    assert not await booting
    failed = of_type(session, ev.ModelFailed)
    assert len(failed) == 1
    assert (failed[0].error, failed[0].held) == ("no disk space", ["fix the bug", "and add a test"])
    assert not session.model and not session.running and not of_type(session, ev.UserMessage)
    assert not await session.start_model()  # not retried
    await session.close()


async def test_a_configured_model_starts_nothing(fake_llm, tmp_path):
    session = Session(Config(model=fake_llm.model, api_base=fake_llm.base_url), tmp_path,
                      tools=[])
    session.model_runtime.start_server = fake_local_start(fake_llm)
    assert await session.start_model()
    assert not of_type(session, ev.ModelStarting) and not session.model_runtime.start_server.servers
    await session.close()


async def test_closing_while_the_model_starts_cancels_the_start(fake_llm, tmp_path):
    session = unconfigured_session(tmp_path, fake_llm, ready=asyncio.Event())
    booting = asyncio.create_task(session.start_model())
    await wait_until(lambda: session.model_runtime.starting)
    await session.close()
    await asyncio.gather(booting, return_exceptions=True)
    assert not session.model_runtime.starting and session.model_runtime.server is None


async def test_headless_draws_the_start_on_stderr_from_the_events(fake_llm, tmp_path):
    from vibe_tui.cli.headless import start_model

    session = unconfigured_session(tmp_path, fake_llm)
    err = io.StringIO()
    assert await start_model(session, err) is None
    assert "downloading the local model: 0/0 MB (50%)" in err.getvalue()
    assert "starting the local model…" in err.getvalue()
    await session.close()

    failing = unconfigured_session(tmp_path / "other", fake_llm, error="no disk space")
    failed = await start_model(failing, io.StringIO())
    assert failed is not None and failed.error == "no disk space"
    await failing.close()

    configured = Session(Config(model=fake_llm.model, api_base=fake_llm.base_url), tmp_path,
                         tools=[])
    err = io.StringIO()
    assert await start_model(configured, err) is None and err.getvalue() == ""
    await configured.close()


async def test_the_step_prompt_is_read_ahead_once_the_model_is_ready(fake_llm, tmp_path):
    fake_llm.push(text("{"), text('{"action": "answer", "text": "four"}'))
    session = unconfigured_session(tmp_path, fake_llm)
    assert await session.start_model()
    await session.model_runtime.warmed
    [warm] = fake_llm.requests
    assert warm["max_tokens"] == 1
    assert [m["role"] for m in warm["messages"]] == ["system", "user"]
    # Kept for the next launch, under a key that is the prefix itself.
    assert session.model_runtime.server.saved_prefixes == [json.dumps(warm["messages"])]
    session.send("what is 2+2?")
    await session.wait_idle()
    question = fake_llm.requests[1]
    # The same fixed start: llama.cpp reuses what it read ahead.
    assert question["messages"][0] == warm["messages"][0]
    assert question["messages"][1]["content"].startswith(warm["messages"][1]["content"])
    assert of_type(session, ev.AssistantMessage)[-1].text == "four"
    await session.close()
