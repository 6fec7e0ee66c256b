"""Small local models write tool calls as JSON in their text: with ``text_tool_calls``
the adapter turns them into real calls (through LiteLLM and the fake server)."""

from __future__ import annotations

import json

import pytest

from vibe_tui.core.model import ModelSettings, stream_completion
from vibe_tui.testing.script import text, tool_call, tool_calls

TOOLS = [{"type": "function", "function": {
    "name": "write_file", "description": "write a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"},
                                                    "content": {"type": "string"}}}}}]
WRITTEN_AS_TEXT = ('I will create it.\n```json\n{"name": "write_file", "arguments": '
                   '{"path": "hello.txt", "content": "hi"}}\n```')


def settings(llm, *, text_calls: bool) -> ModelSettings:
    return ModelSettings(model=llm.model, api_base=llm.base_url, api_key="sk-no-key",
                         text_tool_calls=text_calls)


async def ask(llm, *, text_calls: bool, tools=TOOLS):
    streamed: list[str] = []
    response = await stream_completion(settings(llm, text_calls=text_calls),
                                       [{"role": "user", "content": "make hello.txt"}],
                                       tools, streamed.append)
    return response, "".join(streamed)


async def test_a_call_written_as_text_becomes_a_real_call(fake_llm):
    fake_llm.push(text(WRITTEN_AS_TEXT))
    response, streamed = await ask(fake_llm, text_calls=True)
    assert streamed == WRITTEN_AS_TEXT  # the view saw the text as it came
    [call] = response.tool_calls
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "write_file"
    assert json.loads(call["function"]["arguments"]) == {"path": "hello.txt", "content": "hi"}
    assert response.text == "I will create it."
    assert response.finish_reason == "tool_calls"


async def test_without_the_flag_the_text_stays_text(fake_llm):
    fake_llm.push(text(WRITTEN_AS_TEXT))
    response, _ = await ask(fake_llm, text_calls=False)
    assert response.tool_calls == [] and response.text == WRITTEN_AS_TEXT


@pytest.mark.parametrize("answer", [
    '```json\n{"name": "rm_everything", "arguments": {}}\n```',  # not one of the tools
    '```json\n{"name": "demo", "version": "1.0.0"}\n```',  # a package.json shown to the user
])
async def test_other_json_stays_text(fake_llm, answer):
    fake_llm.push(text(answer))
    response, _ = await ask(fake_llm, text_calls=True)
    assert response.tool_calls == [] and response.text == answer


async def test_native_calls_win_and_no_tools_means_no_parsing(fake_llm):
    fake_llm.push(tool_calls(tool_call("write_file", {"path": "a", "content": "b"}),
                             content=WRITTEN_AS_TEXT))
    response, _ = await ask(fake_llm, text_calls=True)
    assert [c["function"]["arguments"] for c in response.tool_calls] == [
        json.dumps({"path": "a", "content": "b"})]
    fake_llm.push(text(WRITTEN_AS_TEXT))
    response, _ = await ask(fake_llm, text_calls=True, tools=[])
    assert response.tool_calls == [] and response.text == WRITTEN_AS_TEXT


async def test_a_session_on_the_local_model_runs_a_call_written_as_text(fake_llm, tmp_path):
    """The whole way: Config.local_model (set when the embedded model boots) turns the
    fallback on, the call runs as a tool, and its result goes back to the model."""
    from engine_helpers import make_session, of_type, run_turn
    from vibe_tui.core import events as ev

    (tmp_path / "a.txt").write_text("the secret is 42\n")
    written = 'Let me look.\n```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'
    fake_llm.push(text(written), text("It is 42."))
    session = make_session(fake_llm, tmp_path, local_model=True, small_model=False)
    ended = await run_turn(session, "what is the secret?")
    assert ended.state == "completed"
    calls = of_type(session, ev.ToolCall)
    assert [(c.tool, c.args) for c in calls] == [("read_file", {"path": "a.txt"})]
    assert of_type(session, ev.ToolResult)[0].status == "ok"
    assert "the secret is 42" in str(fake_llm.requests[1]["messages"])
    await session.close()


async def test_other_models_keep_a_call_written_as_text_as_text(fake_llm, tmp_path):
    from engine_helpers import make_session, of_type, run_turn
    from vibe_tui.core import events as ev

    written = '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'
    fake_llm.push(text(written))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "what is the secret?")
    assert of_type(session, ev.ToolCall) == []
    await session.close()


READ_TOOL = {"type": "function", "function": {
    "name": "read_file", "description": "read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}
SHAPES = {
    "qwen tags": '<tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "b"}}'
                 '\n</tool_call>',
    "no language": 'Here:\n```\n{"name": "write_file", "arguments": {"path": "a", '
                   '"content": "b"}}\n```',
    "bare in prose": 'I will write it.\n{"name": "write_file", "parameters": {"path": "a", '
                     '"content": "b"}}\nThen I check.',
    "wrapped": '{"type": "function", "function": {"name": "write_file", "arguments": '
               '"{\\"path\\": \\"a\\", \\"content\\": \\"b\\"}"}}',
}


@pytest.mark.parametrize("written", SHAPES.values(), ids=SHAPES.keys())
async def test_the_shapes_small_models_write_become_calls(fake_llm, written):
    fake_llm.push(text(written))
    response, _ = await ask(fake_llm, text_calls=True)
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in response.tool_calls] == [("write_file", {"path": "a", "content": "b"})]
    assert "write_file" not in response.text and response.notes == []


async def test_several_calls_in_one_list_and_in_tags_all_run_in_order(fake_llm):
    fake_llm.push(text('[{"name": "read_file", "arguments": {"path": "a"}}, '
                       '{"name": "write_file", "arguments": {"path": "b", "content": ""}}]\n'
                       '<tool_call>{"name": "read_file", "arguments": {"path": "c"}}'
                       '</tool_call>'))
    response, _ = await ask(fake_llm, text_calls=True, tools=[READ_TOOL, *TOOLS])
    assert [json.loads(c["function"]["arguments"])["path"] for c in response.tool_calls] == [
        "a", "b", "c"]


async def test_a_call_written_as_text_is_never_an_empty_answer_when_words_were_asked(
        fake_llm):
    only_a_call = '```json\n{"name": "write_file", "arguments": {"path": "a"}}\n```'
    fake_llm.push(text(only_a_call))
    response = await stream_completion(
        ModelSettings(model=fake_llm.model, api_base=fake_llm.base_url, api_key="k",
                      text_tool_calls=True, tool_choice="none"),
        [{"role": "user", "content": "answer in words"}], TOOLS, lambda _text: None)
    assert response.tool_calls == [] and response.text == only_a_call


async def test_a_call_not_run_says_why(fake_llm):
    unknown = '```json\n{"name": "open_file", "arguments": {"path": "a"}}\n```'
    fake_llm.push(text(unknown), text(WRITTEN_AS_TEXT))
    response, _ = await ask(fake_llm, text_calls=True)
    assert response.text == unknown and response.tool_calls == []
    assert response.notes == ["the model wrote a call to open_file as text; not run: "
                              "no tool has that name"]
    response, _ = await ask(fake_llm, text_calls=False)  # a model the fallback is not for
    assert response.text == WRITTEN_AS_TEXT and response.tool_calls == []
    assert "not run: only the local model's" in response.notes[0]
