"""The model calls in a process of their own: the real worker process, LiteLLM in it, the
fake model server on loopback; the screen's side never imports LiteLLM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.engine_helpers import make_session, of_type, run_turn
from vibe_tui.core import events as ev
from vibe_tui.core import model as model_adapter
from vibe_tui.core.model import ModelError, ModelSettings, stream_completion
from vibe_tui.core.model_process import ModelProcess, _cl100k
from vibe_tui.testing.script import error, text, tool_call, tool_calls

ANSWER = "".join(f"word{n} " for n in range(300))


@pytest.fixture
async def model_process(tmp_path):
    process = ModelProcess(tmp_path / "model-process.log")
    model_adapter.use_remote(process)
    try:
        yield process
    finally:
        model_adapter.use_remote(None)
        await process.close()


def _settings(fake_llm) -> ModelSettings:
    return ModelSettings(model=fake_llm.model, api_base=fake_llm.base_url, api_key="sk-x")


async def test_an_answer_streams_through_the_process_in_fewer_pieces(fake_llm, model_process):
    fake_llm.push(text(ANSWER, chunk_size=2))
    pieces: list[str] = []
    response = await stream_completion(_settings(fake_llm), [{"role": "user", "content": "hi"}],
                                       [], pieces.append)
    assert response.text == ANSWER and "".join(pieces) == ANSWER
    # 750 deltas left the server; the screen woke for a batch of them at a time.
    assert 1 <= len(pieces) < 750 / 4, len(pieces)
    assert model_process.pid is not None and model_process.ready.is_set()
    assert fake_llm.requests[-1]["messages"] == [{"role": "user", "content": "hi"}]


async def test_the_screen_side_never_imports_litellm(tmp_path, fake_llm):
    fake_llm.push(text("from the other process"))
    script = textwrap.dedent(f"""
        import asyncio, sys
        from vibe_tui.core import model
        from vibe_tui.core.model_process import ModelProcess

        async def main():
            process = ModelProcess()
            model.use_remote(process)
            settings = model.ModelSettings(model={fake_llm.model!r},
                                           api_base={fake_llm.base_url!r}, api_key="sk-x")
            response = await model.stream_completion(
                settings, [{{"role": "user", "content": "hi"}}], [], lambda _t: None)
            count = model.count_tokens("any", "hello world")
            await process.close()
            print(response.text, count, "litellm" in sys.modules)

        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["from", "the", "other", "process", "2", "False"]


async def test_a_tool_call_and_usage_come_back_whole(fake_llm, model_process):
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.py"})))
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]
    response = await stream_completion(_settings(fake_llm), [{"role": "user", "content": "x"}],
                                       tools, lambda _t: None)
    assert [c["function"]["name"] for c in response.tool_calls] == ["read_file"]
    assert response.tool_calls[0]["function"]["arguments"] == '{"path": "a.py"}'
    assert response.finish_reason == "tool_calls"


async def test_a_provider_error_keeps_its_kind_and_words(fake_llm, model_process):
    fake_llm.push(error(429, "slow down", retry_after=7))
    with pytest.raises(ModelError) as raised:
        await stream_completion(_settings(fake_llm), [{"role": "user", "content": "x"}], [],
                                lambda _t: None)
    assert raised.value.kind == "rate_limit" and raised.value.retryable
    assert raised.value.retry_after == 7.0 and "slow down" in raised.value.message


async def test_a_cancelled_call_stops_the_stream_and_the_process_stays(fake_llm, model_process):
    fake_llm.push(text("first " + "never " * 20, chunk_size=6, delay=1.0))
    pieces: list[str] = []
    call = asyncio.create_task(stream_completion(
        _settings(fake_llm), [{"role": "user", "content": "x"}], [], pieces.append))
    while not pieces:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    pid = model_process.pid
    fake_llm.push(text("second"))
    response = await stream_completion(_settings(fake_llm), [{"role": "user", "content": "y"}],
                                       [], lambda _t: None)
    assert response.text == "second" and model_process.pid == pid


async def test_a_dead_process_fails_the_call_and_the_next_call_starts_another(
        fake_llm, model_process):
    fake_llm.push(text("partial " * 20, chunk_size=8, delay=1.0))
    pieces: list[str] = []
    call = asyncio.create_task(stream_completion(
        _settings(fake_llm), [{"role": "user", "content": "x"}], [], pieces.append))
    while not pieces:
        await asyncio.sleep(0.01)
    first_pid = model_process.pid
    os.kill(first_pid, signal.SIGKILL)
    with pytest.raises(ModelError) as raised:
        await call
    assert raised.value.kind == "stream_cut"
    assert raised.value.partial.text.startswith("partial ")
    assert "model process ended" in raised.value.message
    fake_llm.push(text("again"))
    response = await stream_completion(_settings(fake_llm), [{"role": "user", "content": "y"}],
                                       [], lambda _t: None)
    assert response.text == "again" and model_process.pid not in (None, first_pid)


async def test_a_session_turn_runs_its_tools_with_the_model_in_the_process(
        fake_llm, model_process, tmp_path):
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"})))
    fake_llm.push(text("It says 42."))
    session = make_session(fake_llm, tmp_path)
    try:
        ended = await run_turn(session, "what do the notes say?", timeout=120)
    finally:
        await session.close()
    assert ended.state == "completed"
    assert [e.tool for e in of_type(session, ev.ToolCall)] == ["read_file"]
    assert "the answer is 42" in str(fake_llm.requests[-1]["messages"])
    # The window and price lookups were answered by the process: the fake model is unknown.
    assert model_process.known_facts(fake_llm.model) == {"window": None, "prices": None}


async def test_the_app_streams_steers_and_stops_with_its_model_in_a_process(fake_llm, tmp_path):
    from tests.app_helpers import SIZE, screen_text, submit, wait_for, wait_turns_ended
    from vibe_tui.app import VibeApp
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session

    fake_llm.push(text("the first answer, from the other process"))
    fake_llm.push(text("slow " * 200, chunk_size=5, delay=0.2))
    session = Session(Config(model=fake_llm.model, api_base=fake_llm.base_url,
                             model_retry_base_s=0.01), workspace=tmp_path)
    app = VibeApp(session, model_process=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model_process is not None
                       and app.model_process.ready.is_set(), 120, "the model process")
        process = app.model_process
        await submit(pilot, "hello")
        await wait_turns_ended(pilot, session, 1, timeout=60)
        assert "from the other process" in screen_text(app)

        await submit(pilot, "and now a long one")
        await wait_for(pilot, lambda: "slow slow" in screen_text(app), 30,
                       "the second answer to stream")
        await pilot.press("escape")
        await wait_turns_ended(pilot, session, 2, timeout=30)
        assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"
        pid = process.pid
    # Quitting ended the process it started.
    assert process.pid is None and model_adapter.remote() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_the_settings_screen_lists_and_tests_models_through_the_process(
        fake_llm, model_process):
    from vibe_tui.core.model_listing import check_model, completion_models, list_provider_models

    listed = await list_provider_models(("openai",), "openai")
    assert "openai/gpt-4o" in listed
    assert "openai/gpt-4o" in completion_models("openai/gpt-4o")
    fake_llm.push(text("OK"))
    assert (await check_model(fake_llm.model, fake_llm.base_url, "sk-x")).ok
    refused = await check_model("openai/any", "http://127.0.0.1:9/v1", "sk-x", timeout_s=5)
    # The reason beneath LiteLLM's words crosses the pipe too.
    assert not refused.ok and "connect call failed" in refused.message.lower()


def test_the_screen_counts_with_cl100k_without_a_second_copy_of_its_ranks():
    """The screen's tokenizer drops tiktoken's Python copy of the ranks (16 MiB): it still
    encodes and decodes exactly as a tokenizer built afresh from the same ranks."""
    import tiktoken
    from tiktoken_ext.openai_public import cl100k_base

    encoding = _cl100k()
    fresh = tiktoken.Encoding(**cl100k_base())
    text = "def add(a, b):\n    return a + b  # ünïcode ✓ 漢字\n<|endoftext|> and more\n" * 3
    tokens = encoding.encode(text, disallowed_special=())
    assert tokens == fresh.encode(text, disallowed_special=())
    assert encoding.decode(tokens) == text
    assert encoding._mergeable_ranks == {} and len(fresh._mergeable_ranks) > 100_000
