"""The agent loop against the fake model server, reached through LiteLLM."""

from __future__ import annotations

import json

from engine_helpers import make_session, of_type, run_turn, tool_messages

from vibe_tui.core import events as ev
from vibe_tui.core.deltas import DELTA_INTERVAL_S
from vibe_tui.core.loop import CUT_OFF_PROMPT, EMPTY_ANSWER_PROMPT, RESAMPLE_TEMPERATURE
from vibe_tui.core.repeats import REPEAT_HINT, SAME_CALL_HINT, STUCK_HINT
from vibe_tui.core.prompts import PLAN_MODE_NOTE, PLAN_OVER_NOTE, TURN_LIMIT_NOTE
from vibe_tui.testing.script import cut_stream, error, hold, text, tool_call, tool_calls


async def test_text_answer_streams_and_completes(fake_llm, tmp_path):
    fake_llm.push(text("Hello there, the answer is 42."))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "what is the answer?")
    assert end.state == "completed"
    deltas = "".join(e.text for e in of_type(session, ev.TextDelta))
    assert deltas == "Hello there, the answer is 42."
    assert of_type(session, ev.AssistantMessage)[-1].text == deltas
    request = fake_llm.requests[0]
    assert request["stream"] is True
    assert request["messages"][0]["role"] == "system"
    assert request["messages"][-1] == {"role": "user", "content": "what is the answer?"}
    assert {t["function"]["name"] for t in request["tools"]} >= {"read_file", "bash", "grep"}
    usage = of_type(session, ev.Usage)
    assert usage and usage[-1].prompt_tokens > 0 and usage[-1].cost is None  # unknown model


async def test_tool_results_are_fed_back_until_a_plain_answer(fake_llm, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.py"})), text("x is 1"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "read a.py")
    assert end.state == "completed"
    result = of_type(session, ev.ToolResult)[0]
    assert result.status == "ok" and "x = 1" in result.output
    second = fake_llm.requests[1]
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][0]
    assert assistant["tool_calls"][0]["function"]["name"] == "read_file"
    assert "x = 1" in tool_messages(second)[0]["content"]


async def test_step_limit_ends_the_turn_with_state_limit(fake_llm, tmp_path):
    (tmp_path / "f.txt").write_text("data\n")
    for offset in range(1, 4):
        fake_llm.push(tool_calls(tool_call("read_file", {"path": "f.txt", "offset": offset})))
    session = make_session(fake_llm, tmp_path, max_steps=3)
    end = await run_turn(session, "loop forever")
    assert end.state == "limit"
    assert len(fake_llm.requests) == 3
    assert "max_steps" in end.message
    # The last call asked for words; the call it made anyway was dropped, not run.
    assert fake_llm.requests[2]["messages"][-1] == {"role": "user", "content": TURN_LIMIT_NOTE}
    assert fake_llm.requests[2]["tool_choice"] == "none" and fake_llm.requests[2]["tools"]
    assert "tool_choice" not in fake_llm.requests[1]
    assert len(of_type(session, ev.ToolCall)) == len(of_type(session, ev.ToolResult)) == 2
    assert of_type(session, ev.AssistantMessage)[-1].tool_calls == []
    fake_llm.push(text("going on"))
    assert (await run_turn(session, "go on")).state == "completed"
    assert len(tool_messages(fake_llm.requests[3])) == 2  # the history every provider takes


async def test_the_last_call_of_a_turn_gives_the_user_an_answer(fake_llm, tmp_path):
    """The local model found the answer early and was still searching at the limit: the
    last call asks for what it found, and that answer reaches the user."""
    (tmp_path / "f.txt").write_text("port = 8443\n")
    read = tool_calls(tool_call("read_file", {"path": "f.txt"}))
    fake_llm.push(read, read, text("The port is 8443."))
    session = make_session(fake_llm, tmp_path, max_steps=3)
    end = await run_turn(session, "which port?")
    assert end.state == "limit" and "send a message to continue" in end.message
    assert of_type(session, ev.AssistantMessage)[-1].text == "The port is 8443."
    fake_llm.push(text("still 8443"))
    assert (await run_turn(session, "sure?")).state == "completed"
    assert tool_messages(fake_llm.requests[3])  # the history stays valid for the next turn


async def test_repeated_failing_call_gets_a_hint_then_ends_the_turn(fake_llm, tmp_path):
    for _ in range(3):
        fake_llm.push(tool_calls(tool_call("read_file", {"path": "missing.py"})))
    fake_llm.push(text("never reached"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "read missing.py")
    results = of_type(session, ev.ToolResult)
    assert REPEAT_HINT not in results[0].output
    assert REPEAT_HINT in results[1].output
    assert end.state == "failed" and "three times" in end.message
    assert len(fake_llm.requests) == 3


async def test_a_greedy_model_samples_once_after_repeating_a_failing_call(fake_llm, tmp_path):
    """At temperature 0 the same context gives the same call: the request after a
    repeat is sampled, and the next one is greedy again."""
    for _ in range(2):
        fake_llm.push(tool_calls(tool_call("read_file", {"path": "missing.py"})))
    fake_llm.push(tool_calls(tool_call("list_dir", {})), text("done"))
    session = make_session(fake_llm, tmp_path, temperature=0.0)
    end = await run_turn(session, "read missing.py")
    assert end.state == "completed"
    assert [r.get("temperature") for r in fake_llm.requests] == [0.0, 0.0, RESAMPLE_TEMPERATURE, 0.0]


async def test_an_answer_cut_at_the_output_limit_is_reprompted_not_taken_as_final(fake_llm, tmp_path):
    """The local model looped on one line until its window was full: it now has an output
    cap, and an answer that hits it is not the end of the task."""
    fake_llm.push(text("I will now " + "repeat " * 50, finish_reason="length"), text("Done: it is 42."))
    session = make_session(fake_llm, tmp_path, max_output_tokens=64)
    end = await run_turn(session, "what is it?")
    assert end.state == "completed"
    assert of_type(session, ev.AssistantMessage)[-1].text == "Done: it is 42."
    assert fake_llm.requests[0]["max_tokens"] == 64
    assert fake_llm.requests[1]["messages"][-1] == {"role": "user", "content": CUT_OFF_PROMPT}


async def test_two_answers_cut_at_the_output_limit_end_the_turn(fake_llm, tmp_path):
    fake_llm.push(*[text("again " * 20, finish_reason="length")] * 2)
    session = make_session(fake_llm, tmp_path, max_output_tokens=32)
    end = await run_turn(session, "hi")
    assert end.state == "failed" and "cut off at its output limit twice" in end.message


async def test_a_repeated_successful_call_is_pointed_out_and_a_file_change_resets_the_count(
        fake_llm, tmp_path):
    """A sub-agent of the local model called the same repo_map eleven times; a test run
    that fails again after an edit is not a repeat."""
    (tmp_path / "f.txt").write_text("a\n")
    read = tool_calls(tool_call("read_file", {"path": "f.txt"}))
    failing = tool_calls(tool_call("bash", {"command": "exit 1"}))
    edit = tool_calls(tool_call("edit_file", {"path": "f.txt", "old_string": "a", "new_string": "b"}))
    fake_llm.push(read, read, failing, failing, edit, failing, text("done"))
    session = make_session(fake_llm, tmp_path, mode="yolo")
    end = await run_turn(session, "go")
    assert end.state == "completed"
    outputs = [r.output for r in of_type(session, ev.ToolResult)]
    assert [SAME_CALL_HINT in o for o in outputs] == [False, True, False, False, False, False]
    assert [REPEAT_HINT in o for o in outputs] == [False, False, False, True, False, False]


async def test_a_read_made_three_times_gets_an_answer_in_words(fake_llm, tmp_path):
    """The local model grepped one file eleven times: at the third identical read the
    next request asks for words (tool_choice none), and the turn ends with them."""
    (tmp_path / "settings.toml").write_text("port = 8443\n")
    grep = tool_calls(tool_call("grep", {"pattern": "port", "path": "settings.toml"}))
    fake_llm.push(grep, grep, grep, text("The port is 8443."))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "which port?")
    assert end.state == "completed"
    outputs = [r.output for r in of_type(session, ev.ToolResult)]
    assert [STUCK_HINT in o for o in outputs] == [False, False, True]
    assert [r.get("tool_choice") for r in fake_llm.requests] == [None, None, None, "none"]


async def test_a_call_written_as_text_when_words_were_asked_for_is_not_run(fake_llm, tmp_path):
    """Under tool_choice none llama.cpp returns the local model's call as text; the
    text-call fallback must not turn it back into a call that runs."""
    (tmp_path / "a.txt").write_text("alpha\n")
    read = tool_calls(tool_call("read_file", {"path": "a.txt"}))
    written = '```tool_call\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'
    fake_llm.push(read, read, read, text(written), text("It says alpha."))
    session = make_session(fake_llm, tmp_path, local_model=True, small_model=False)
    end = await run_turn(session, "what does a.txt say?")
    assert len(of_type(session, ev.ToolResult)) == 3  # the fourth read never ran
    assert fake_llm.requests[3]["tool_choice"] == "none"
    assert end.state == "completed"
    answers = of_type(session, ev.AssistantMessage)
    assert answers[-2].text == written  # kept as written, never an empty answer
    assert answers[-1].text == "It says alpha."  # and the model was asked for words again
    assert any("not run" in n.text for n in of_type(session, ev.Notice))


async def test_a_model_that_will_only_call_tools_ends_the_turn_saying_so(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    read = tool_calls(tool_call("read_file", {"path": "a.txt"}))
    fake_llm.push(*[read] * 6)
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "what does a.txt say?")
    assert end.state == "failed" and "kept calling tools when asked to answer" in end.message
    assert len(of_type(session, ev.ToolResult)) == 4  # the asked-for-words answers ran nothing


async def test_a_command_run_three_times_is_not_cut_short(fake_llm, tmp_path):
    """A command may see what the record does not (a file written by bash): its third
    run only gets the same-call hint, and the tools stay open."""
    run = tool_calls(tool_call("bash", {"command": "cat notes.txt"}))
    (tmp_path / "notes.txt").write_text("x\n")
    fake_llm.push(run, run, run, text("done"))
    session = make_session(fake_llm, tmp_path, mode="yolo")
    assert (await run_turn(session, "go")).state == "completed"
    outputs = [r.output for r in of_type(session, ev.ToolResult)]
    assert [SAME_CALL_HINT in o for o in outputs] == [False, True, True]
    assert not any(STUCK_HINT in o for o in outputs)
    assert all("tool_choice" not in r for r in fake_llm.requests)


async def test_streamed_text_is_sent_in_deltas_at_most_a_frame_apart(fake_llm, tmp_path):
    """400 chunks arrive in about a second: the views get about ten deltas, the first at
    once, and every character."""
    answer = "".join(f"w{i:03d} " for i in range(400))
    fake_llm.push(text(answer, chunk_size=5, rate=400))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "go")
    deltas = of_type(session, ev.TextDelta)
    assert "".join(d.text for d in deltas) == answer
    assert deltas[0].text == "w000 "
    assert 5 <= len(deltas) <= 60
    gaps = [b.ts - a.ts for a, b in zip(deltas[1:], deltas[2:])]
    assert min(gaps) >= DELTA_INTERVAL_S * 0.9


async def test_empty_answer_is_reprompted_once(fake_llm, tmp_path):
    fake_llm.push(text(""), text("Now a real answer."))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "completed"
    assert fake_llm.requests[1]["messages"][-1] == {"role": "user", "content": EMPTY_ANSWER_PROMPT}


async def test_empty_answer_twice_fails(fake_llm, tmp_path):
    fake_llm.push(text(""), text(""))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed" and "empty" in end.message


async def test_malformed_arguments_unknown_tool_and_missing_argument(fake_llm, tmp_path):
    fake_llm.push(
        tool_calls(
            tool_call("read_file", '{"path": "a.py"', id="bad"),
            tool_call("teleport", {"to": "mars"}, id="unknown"),
            tool_call("read_file", {}, id="missing"),
        ),
        text("ok"),
    )
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "go")
    assert end.state == "completed"
    results = {r.call_id: r for r in of_type(session, ev.ToolResult)}
    assert "invalid JSON" in results["bad"].output
    assert "unknown tool 'teleport'" in results["unknown"].output
    assert "read_file" in results["unknown"].output  # lists the real ones
    assert "path" in results["missing"].output
    assert all(r.status == "error" for r in results.values())
    # The broken arguments never reach the provider again.
    assistant = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "assistant"][0]
    sent = {c["id"]: c["function"]["arguments"] for c in assistant["tool_calls"]}
    assert sent["bad"] == "{}"
    json.loads(sent["unknown"])


async def test_rate_limit_is_retried_after_the_given_delay(fake_llm, tmp_path):
    fake_llm.push(error(429, "slow down", retry_after=0.2), error(500, "boom"), text("made it"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "completed"
    retries = [e for e in of_type(session, ev.Error) if e.retrying]
    assert len(retries) == 2
    assert "retrying in 0.2 s" in retries[0].message
    assert len(fake_llm.requests) == 3


async def test_server_errors_give_up_after_three_tries(fake_llm, tmp_path):
    fake_llm.push(error(500, "boom"), error(503, "down"), error(500, "still"), text("late"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed"
    assert len(fake_llm.requests) == 3


async def test_auth_error_fails_with_a_clear_message(fake_llm, tmp_path):
    fake_llm.push(error(401, "Incorrect API key provided"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed"
    assert "authentication failed" in end.message and "API key" in end.message
    assert len(fake_llm.requests) == 1  # not retried


async def test_unknown_model_fails_without_retrying(fake_llm, tmp_path):
    fake_llm.push(error(404, "The model `nope` does not exist"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed" and "not found" in end.message
    assert len(fake_llm.requests) == 1


async def test_context_overflow_fails_with_a_clear_message(fake_llm, tmp_path):
    fake_llm.push(error(400, "This model's maximum context length is 8192 tokens. However, "
                             "your messages resulted in 9000 tokens."))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed" and "context window" in end.message
    assert len(fake_llm.requests) == 1


async def test_cut_stream_keeps_partial_text_and_a_valid_history(fake_llm, tmp_path):
    fake_llm.push(cut_stream("The first half of an answ"), text("second turn answer"))
    session = make_session(fake_llm, tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed"
    partial = of_type(session, ev.AssistantMessage)[-1]
    assert partial.partial and partial.text.startswith("The first half")
    end2 = await run_turn(session, "again")
    assert end2.state == "completed"
    roles = [m["role"] for m in fake_llm.requests[-1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


async def test_no_model_configured_fails_clearly(tmp_path):
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session

    session = Session(Config(), tmp_path)
    end = await run_turn(session, "hi")
    assert end.state == "failed" and "--model" in end.message


async def test_read_only_calls_in_one_response_all_get_results(fake_llm, tmp_path):
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(name * 3)
    calls = [tool_call("read_file", {"path": f"{n}.txt"}, id=f"c{n}") for n in "abc"]
    fake_llm.push(tool_calls(*calls), text("read them"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "read all")
    outputs = {r.call_id: r.output for r in of_type(session, ev.ToolResult)}
    assert set(outputs) == {"ca", "cb", "cc"}
    assert "bbb" in outputs["cb"]
    assert [m["tool_call_id"] for m in tool_messages(fake_llm.requests[1])] != []


async def test_a_model_timeout_is_retried(fake_llm, tmp_path):
    fake_llm.push(hold(text("too late")), text("on time"))
    session = make_session(fake_llm, tmp_path, model_timeout_s=0.5)
    end = await run_turn(session, "hi")
    fake_llm.release()
    assert end.state == "completed"
    assert of_type(session, ev.AssistantMessage)[-1].text == "on time"
    retries = [e for e in of_type(session, ev.Error) if e.retrying]
    assert len(retries) == 1


def test_calls_sent_without_ids_get_ids_unique_across_responses():
    """Some local servers send no call ids; "call_0" in every response would make the
    views and the history mix up calls of different steps."""
    from types import SimpleNamespace

    from vibe_tui.core.model_chunks import ToolCallAssembler as _ToolCallAssembler

    def response_ids() -> list[str]:
        assembler = _ToolCallAssembler()
        for index in (0, 1):
            function = SimpleNamespace(name="list_dir", arguments='{"path": "."}')
            assembler.add(SimpleNamespace(index=index, id=None, function=function))
        return [call["id"] for call in assembler.calls()]

    first, second = response_ids(), response_ids()
    assert len(set(first + second)) == 4 and all(i.startswith("call_") for i in first)


def _user_contents(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


async def test_plan_mode_tells_the_model_it_plans_and_when_it_may_act_again(fake_llm, tmp_path):
    fake_llm.push(text("1. change a"), text("2. change b"), text("done"))
    session = make_session(fake_llm, tmp_path)
    session.set_mode("plan")
    await run_turn(session, "plan the fix")
    await run_turn(session, "and the tests?")
    session.set_mode("default")
    await run_turn(session, "go ahead")
    first, second, third = (_user_contents(r) for r in fake_llm.requests)
    assert PLAN_MODE_NOTE in first[-1] and first[-1].endswith("plan the fix")
    assert PLAN_MODE_NOTE in second[-1] and PLAN_OVER_NOTE not in second[-1]
    assert PLAN_OVER_NOTE in third[-1] and PLAN_MODE_NOTE not in third[-1]
    assert third[-1].endswith("go ahead")
    # The system prompt, the cached prefix, is the same in every mode.
    assert len({r["messages"][0]["content"] for r in fake_llm.requests}) == 1
    # What the user sees is their own words, not the note.
    assert [e.text for e in of_type(session, ev.UserMessage)] == [
        "plan the fix", "and the tests?", "go ahead"]


async def test_no_mode_note_for_a_session_that_never_planned(fake_llm, tmp_path):
    fake_llm.push(text("ok"), text("ok"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "one")
    await run_turn(session, "two")
    for request in fake_llm.requests:
        assert not any("plan mode" in c for c in _user_contents(request))
