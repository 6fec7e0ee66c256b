"""Context window management against the fake model server: counting, the three
compaction steps, the output cap, prefix stability, and a long session on a small window."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine_helpers import make_session, of_type, run_turn
from vibe_tui.config.settings import Config
from vibe_tui.core import compaction
from vibe_tui.core import context as ctx
from vibe_tui.core import events as ev
from vibe_tui.core import history
from vibe_tui.core.model import litellm_module
from vibe_tui.core.prompts import SUMMARY_PROMPT
from vibe_tui.core.session import Session
from vibe_tui.tools.base import schema_of
from vibe_tui.testing.fake_llm import FakeLLM
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.testing.wire import estimate_prompt_tokens

SUMMARY_MARK = SUMMARY_PROMPT.splitlines()[0]
WINDOW = 8192


@pytest.fixture(autouse=True, scope="module")
def _litellm_imported():
    # Imported once up front: on a loaded machine the import alone can outlast a turn's
    # timeout, and these tests are about what happens after it.
    litellm_module()


def is_summary_request(request: dict) -> bool:
    return request["messages"][0]["content"].startswith(SUMMARY_MARK)


def turn_requests(llm: FakeLLM) -> list[dict]:
    return [r for r in llm.requests if not is_summary_request(r)]


def small_window(llm: FakeLLM, window: int = WINDOW) -> dict:
    """Config overriding the fake model's window the way a user would for a local model."""
    return {"models": {llm.model: {"context_window": window}}}


def assert_calls_paired(messages: list[dict]) -> None:
    """Every tool message answers a call of the assistant message just before its run of
    tool messages, and every call is answered before the conversation moves on."""
    open_ids: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_ids, f"orphan result {message}"
            open_ids.remove(message["tool_call_id"])
            continue
        assert not open_ids, f"calls {open_ids} left unanswered before {message['role']}"
        if message["role"] == "assistant":
            open_ids = [call["id"] for call in message.get("tool_calls") or []]
    assert not open_ids


def numbered(path_number: int, lines: int) -> str:
    return "".join(f"def function_{path_number}_{n}(argument):  # line {n} of a long file\n"
                   for n in range(lines))


def long_session_responder(request: dict):
    """Reads a file after each user message, then answers at length; writes summaries."""
    messages = request["messages"]
    if is_summary_request(request):
        return text("Goal: read the files one by one. Files: file_N.py read. Left to do: more.")
    last = messages[-1]
    if last["role"] == "user":
        number = sum(1 for m in messages if m["role"] == "user")
        return tool_calls(tool_call("read_file", {"path": f"file_{number % 7}.py"}))
    return text("I read it. " + "It defines many small functions with one argument each. " * 6)


async def test_sixty_turns_on_an_8k_window_stay_under_it_with_calls_paired(tmp_path):
    for number in range(7):
        (tmp_path / f"file_{number}.py").write_text(numbered(number, 60))
    with FakeLLM(responder=long_session_responder) as llm:
        session = make_session(llm, tmp_path, **small_window(llm))
        for turn in range(60):
            end = await run_turn(session, f"Turn {turn}: read the next file and describe it.")
            assert end.state == "completed", end.message
        requests = turn_requests(llm)
        assert len(requests) == 120
        for request in requests:
            assert_calls_paired(request["messages"])
            assert estimate_prompt_tokens(request) < WINDOW * 0.8
        compactions = of_type(session, ev.Compacted)
        assert len(compactions) >= 2
        assert {"stub", "summary"} <= {step for c in compactions for step in c.steps}
        assert all(c.tokens_after < c.tokens_before for c in compactions)
        assert all(c.window == WINDOW for c in compactions)
        usage = of_type(session, ev.ContextUsage)
        assert usage and max(u.percent for u in usage) < 80
        assert usage[-1].window_source == "config"
        # The record rebuilds the same compacted history.
        await session.close()
        resumed = Session.resume(Config(model=llm.model, api_base=llm.base_url,
                                        **small_window(llm)), tmp_path, session.store_path)
        assert resumed.messages == session.messages


async def test_old_results_become_stubs_and_the_newest_stay_whole(tmp_path):
    for number in range(6):
        (tmp_path / f"big{number}.py").write_text(numbered(number, 30))
    with FakeLLM(responder=long_session_responder) as llm:
        session = make_session(llm, tmp_path, **small_window(llm, 4096))
        for number in range(6):
            llm.push(tool_calls(tool_call("read_file", {"path": f"big{number}.py"})),
                     text("read"))
            await run_turn(session, f"read big{number}.py")
        compaction = of_type(session, ev.Compacted)[0]
        assert compaction.steps == ["stub"]
        assert [stub for _, stub in compaction.stubs] == [
            f"[cleared: read_file returned 31 lines of big{n}.py]" for n in range(5)]
        sent = turn_requests(llm)[-1]["messages"]
        results = [m["content"] for m in sent if m["role"] == "tool"]
        assert results[:5] == [stub for _, stub in compaction.stubs]
        assert "function_5_29" in results[-1]  # the newest result is whole
        assert_calls_paired(sent)


async def test_a_result_is_capped_to_a_fifth_of_the_window_with_a_note(fake_llm, tmp_path):
    (tmp_path / "huge.py").write_text(numbered(1, 1500))
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "huge.py"})), text("ok"))
    session = make_session(fake_llm, tmp_path, **small_window(fake_llm))
    await run_turn(session, "read huge.py")
    output = of_type(session, ev.ToolResult)[0].output
    assert "cut here: the output was longer than 20 % of the context window" in output
    assert output.startswith("     1\tdef function_1_0")  # the head is kept
    assert "function_1_1499" in output  # and the tail
    # The fake provider counts a quarter token per character.
    assert len(output) / 4 <= WINDOW * 0.2 * 1.1


async def test_a_batch_too_big_for_the_window_is_cut_as_a_last_resort(fake_llm, tmp_path):
    for number in range(5):
        (tmp_path / f"part{number}.py").write_text(numbered(number, 400))
    reads = [tool_call("read_file", {"path": f"part{n}.py"}, id=f"r{n}") for n in range(5)]
    fake_llm.push(tool_calls(*reads), text("read them all"))
    session = make_session(fake_llm, tmp_path, **small_window(fake_llm))
    end = await run_turn(session, "read all five parts")
    assert end.state == "completed"
    compaction = of_type(session, ev.Compacted)[-1]
    assert "cut" in compaction.steps
    assert "cut here: cut to free room in the context window" in compaction.cuts[0][1]
    last = fake_llm.requests[-1]
    assert_calls_paired(last["messages"])
    assert estimate_prompt_tokens(last) < WINDOW
    assert sorted(m["tool_call_id"] for m in last["messages"] if m["role"] == "tool") == [
        f"r{n}" for n in range(5)]


async def test_the_start_of_each_request_is_byte_identical_between_compactions(tmp_path):
    for number in range(7):
        (tmp_path / f"file_{number}.py").write_text(numbered(number, 30))
    with FakeLLM(responder=long_session_responder) as llm:
        session = make_session(llm, tmp_path, **small_window(llm, 4096))
        for turn in range(12):
            await run_turn(session, f"turn {turn}")
        compactions = of_type(session, ev.Compacted)
        assert compactions, "the scenario must compact at least once"
        requests = turn_requests(llm)
        unchanged = 0
        for before, after in zip(requests, requests[1:]):
            assert json.dumps(before["tools"]) == json.dumps(after["tools"])
            assert before["messages"][0] == after["messages"][0]  # the system prompt
            prefix = before["messages"]
            if after["messages"][:len(prefix)] == prefix:
                unchanged += 1
        # Only requests right after a compaction may differ in their start.
        assert unchanged >= len(requests) - 1 - len(compactions)
        assert unchanged < len(requests) - 1  # and the compactions did change it


async def test_manual_compact_sends_a_summary_request_and_replaces_older_turns(
        fake_llm, tmp_path):
    (tmp_path / "parser.py").write_text(numbered(0, 30))
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "parser.py"})),
                  text("The parser splits on commas. " * 20),
                  text("Fixed the quoting bug in parse(). " * 10),
                  text("Goal: fix the parser. Files: parser.py read, quoting fixed. Left: tests."),
                  text("continuing"))
    session = make_session(fake_llm, tmp_path, **small_window(fake_llm, 4096))
    await run_turn(session, "Why does parse() break on quoted commas?")
    await run_turn(session, "Then fix the quoting.")
    event = await session.compact("the quoting bug")
    assert event is not None and event.reason == "manual" and event.steps == ["summary"]
    assert event.tokens_after < event.tokens_before
    request = fake_llm.requests[3]
    system, user = request["messages"]
    assert system["role"] == "system" and "Goal:" in system["content"]
    assert "Left to do:" in system["content"] and "Files:" in system["content"]
    assert "focus on: the quoting bug" in system["content"]
    assert "tools" not in request
    assert "Why does parse() break on quoted commas?" in user["content"]
    assert 'called read_file({"path": "parser.py"})' in user["content"]
    assert "## Result of read_file" in user["content"]
    await run_turn(session, "now the tests")
    sent = fake_llm.requests[-1]["messages"]
    assert sent[1]["content"].startswith(history.SUMMARY_HEADER)
    assert "Goal: fix the parser." in sent[1]["content"]
    assert sent[-1] == {"role": "user", "content": "now the tests"}
    everything_sent = json.dumps(sent)
    assert "Why does parse() break" not in everything_sent
    assert "function_0_0" not in everything_sent  # the file read went into the summary
    assert "The parser splits on commas" in everything_sent  # recent enough to stay
    assert_calls_paired(sent)


async def test_a_failed_summary_call_falls_back_to_a_plain_record(fake_llm, tmp_path):
    from vibe_tui.testing.script import error

    fake_llm.push(text("first answer " * 150), text("second answer " * 150), error(401))
    session = make_session(fake_llm, tmp_path, **small_window(fake_llm, 4096))
    await run_turn(session, "first question about the build")
    await run_turn(session, "second question")
    event = await session.compact()
    assert event is not None
    assert "plain record" in event.summary and "first question about the build" in event.summary
    assert any("summary could not be written" in n.text for n in of_type(session, ev.Notice))


async def test_compact_on_a_short_conversation_does_nothing(fake_llm, tmp_path):
    fake_llm.push(text("hi"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "hello")
    assert await session.compact() is None
    assert len(fake_llm.requests) == 1


async def test_context_use_is_the_providers_count(fake_llm, tmp_path):
    fake_llm.push(text("a", usage=(6000, 10)), text("b"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "hello")
    usage = of_type(session, ev.ContextUsage)[-1]
    assert (usage.tokens, usage.percent) == (6010, round(100 * 6010 / ctx.DEFAULT_WINDOW))
    assert usage.window_source == "default" and "8,192" in usage.note
    assert session.context_usage == usage
    # The next request is judged from the provider's count, not from ours.
    schemas = [schema_of(tool) for tool in session.tools.values()]
    raw = await session.context.measure(fake_llm.model, session.system_prompt, schemas,
                                        session.messages)
    assert session.context.estimate(raw) >= 6000


def test_calibration_anchors_on_the_last_report_and_learns_the_ratio_of_changes():
    tracker = ctx.ContextTracker(Config())
    assert tracker.estimate(1000) == 1000  # nothing reported yet: our own count
    tracker.calibrate(1000, 2000)  # the provider counts tool schemas we do not
    assert tracker.estimate(1200) == 2200
    tracker.calibrate(1600, 2900)  # 600 more of ours were 900 more of theirs
    assert tracker.ratio == 1.5
    assert tracker.estimate(2000) == 2900 + 600
    assert tracker.raw_for(3500) == 2000
    tracker.calibrate(1650, 2950)  # too small a change to learn from
    assert tracker.ratio == 1.5


@pytest.mark.parametrize("config, expected", [
    ({"context_window": 32000}, (32000, "config")),
    ({"context_window": 32000, "models": {"openai/gpt-4o": {"context_window": 1000}}},
     (1000, "config")),
    ({}, (128000, "model info")),
])
def test_window_comes_from_config_then_litellm(config, expected):
    window = ctx.context_window(Config(**config), "openai/gpt-4o")
    assert (window.tokens, window.source) == expected


def test_unknown_models_fall_back_to_8k_and_say_so():
    window = ctx.context_window(Config(), "openai/some-local-model")
    assert (window.tokens, window.source) == (8192, "default")
    assert "unknown" in window.note and "context_window" in window.note


def test_summary_cut_never_starts_the_kept_part_with_a_result():
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "x", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "next"},
    ]
    counts = [10, 10, 10, 10, 10, 10]
    for tail in range(0, 70, 5):
        keep_from = compaction.summary_cut(messages, counts, tail)
        assert keep_from <= 5  # the newest message always stays
        assert messages[keep_from]["role"] != "tool"


async def test_compact_during_a_turn_happens_before_its_next_model_call(fake_llm, tmp_path):
    from vibe_tui.testing.script import hold

    (tmp_path / "a.py").write_text(numbered(0, 30))
    fake_llm.push(text("An earlier answer about the code. " * 30),
                  hold(tool_calls(tool_call("read_file", {"path": "a.py"}))),
                  text("Goal: look at a.py. Left: answer."), text("done"))
    session = make_session(fake_llm, tmp_path, **small_window(fake_llm, 4096))
    await run_turn(session, "first question")
    session.send("read a.py")
    assert await asyncio.to_thread(fake_llm.wait_for_requests, 2)
    assert await session.compact("a.py") is None  # the turn is running: done before its next call
    fake_llm.release()
    await asyncio.wait_for(session.wait_idle(), 30)
    assert is_summary_request(fake_llm.requests[2])
    assert "focus on: a.py" in fake_llm.requests[2]["messages"][0]["content"]
    [compaction] = of_type(session, ev.Compacted)
    assert compaction.reason == "manual" and compaction.focus == "a.py"
    assert_calls_paired(fake_llm.requests[3]["messages"])


def test_a_compaction_model_of_another_provider_does_not_inherit_the_endpoint(tmp_path):
    config = Config(model="openai/local", api_base="http://127.0.0.1:9/v1", api_key="k",
                    compaction_model="anthropic/claude-haiku-4-5")
    session = Session(config, tmp_path, persist=False)
    settings = session.compaction_settings(500)
    assert (settings.model, settings.api_base, settings.api_key) == (
        "anthropic/claude-haiku-4-5", None, None)
    assert settings.max_tokens == 500
    same = Session(Config(model="openai/local", api_base="http://127.0.0.1:9/v1",
                          compaction_model="openai/small"), tmp_path, persist=False)
    assert same.compaction_settings(500).api_base == "http://127.0.0.1:9/v1"


async def test_a_context_overflow_from_the_provider_compacts_and_retries(fake_llm, tmp_path):
    from vibe_tui.testing.script import error

    for number in range(3):
        (tmp_path / f"f{number}.py").write_text(numbered(number, 30))
        fake_llm.push(tool_calls(tool_call("read_file", {"path": f"f{number}.py"})),
                      text("read"))
    fake_llm.push(error(400), text("Goal: read the files. Left: nothing."),
                  text("answered after compacting"))
    session = make_session(fake_llm, tmp_path)
    for number in range(3):
        await run_turn(session, f"read f{number}.py")
    assert not of_type(session, ev.Compacted)  # far below the threshold by our count
    end = await run_turn(session, "and now?")
    assert end.state == "completed"
    assert of_type(session, ev.AssistantMessage)[-1].text == "answered after compacting"
    [compaction] = of_type(session, ev.Compacted)
    assert compaction.steps[0] == "stub" and compaction.tokens_before > WINDOW
    retried = fake_llm.requests[-1]["messages"]
    assert len(json.dumps(retried)) < len(json.dumps(fake_llm.requests[-3]["messages"])) / 2
    assert_calls_paired(retried)


def test_the_per_model_window_is_read_from_the_config_file():
    from vibe_tui.config.paths import config_dir
    from vibe_tui.config.settings import load_config

    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('compact_at = 0.6\n[models."ollama/qwen3"]\ncontext_window = 32768\n')
    config = load_config()
    assert config.compact_at == 0.6
    assert ctx.context_window(config, "ollama/qwen3") == ctx.Window(32768, "config")
    path.write_text("compact_at = 2\n")
    with pytest.raises(ValueError, match="compact_at must be between"):
        load_config()
