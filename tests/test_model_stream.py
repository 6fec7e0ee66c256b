"""How a streamed answer shares the event loop: the model adapter against the fake
server, through LiteLLM."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest
from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

from vibe_tui.core.model import ModelError, ModelSettings, stream_completion
from vibe_tui.core.model_chunks import REPEAT_CHECK_CHARS, RepeatWatch, event_data
from vibe_tui.testing.script import cut_stream, error_mid_stream, text, tool_call, tool_calls

ANSWER = "".join(f"word{n} " for n in range(400))


async def test_a_stream_leaves_no_async_generator_per_chunk_behind(fake_llm):
    # Each generator left unfinished is finalized by asyncio with a thread-safe wake-up of
    # the loop and a task: per chunk, that was a fifth of the stream's CPU.
    fake_llm.push(text(ANSWER, chunk_size=4))
    settings = ModelSettings(model=fake_llm.model, api_base=fake_llm.base_url, api_key="sk-x")
    first_iter, finalizer = sys.get_asyncgen_hooks()
    finalized = []

    def counting(generator):
        finalized.append(generator)
        return finalizer(generator)

    sys.set_asyncgen_hooks(first_iter, counting)
    deltas: list[str] = []
    try:
        response = await stream_completion(settings, [{"role": "user", "content": "hi"}], [],
                                           deltas.append)
    finally:
        sys.set_asyncgen_hooks(first_iter, finalizer)
    assert response.text == ANSWER and len(deltas) == -(-len(ANSWER) // 4)
    assert len(finalized) < 10, f"{len(finalized)} generators finalized for {len(deltas)} deltas"


def settings_for(fake_llm, model: str | None = None) -> ModelSettings:
    return ModelSettings(model=model or fake_llm.model, api_base=fake_llm.base_url,
                         api_key="sk-x")


async def answer_of(fake_llm, model: str | None = None, tools=()):
    deltas: list[str] = []
    response = await stream_completion(settings_for(fake_llm, model),
                                       [{"role": "user", "content": "hi"}], list(tools),
                                       deltas.append)
    return response, deltas


@pytest.fixture
def chunks_litellm_made(monkeypatch):
    """How many chunks went through LiteLLM's own per-chunk work."""
    made = []
    original = CustomStreamWrapper.chunk_creator

    def counting(self, chunk):
        made.append(chunk)
        return original(self, chunk)

    monkeypatch.setattr(CustomStreamWrapper, "chunk_creator", counting)
    return made


READ_FILE = {"type": "function", "function": {
    "name": "read_file", "parameters": {"type": "object", "properties": {}}}}


@pytest.mark.parametrize("route", ["openai", "hosted_vllm"])
async def test_both_routes_give_the_same_answer(fake_llm, chunks_litellm_made, route):
    # openai/: the openai SDK's stream, read past LiteLLM's per-chunk work; hosted_vllm/:
    # LiteLLM's own HTTP stream, read through its wrapper as before.
    fake_llm.push(text("Let me look at it.", usage=(120, 9)))
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.py"}), content="First:"))
    model = f"{route}/{fake_llm.model.split('/', 1)[1]}"
    answer, deltas = await answer_of(fake_llm, model)
    called, _ = await answer_of(fake_llm, model, [READ_FILE])
    assert (answer.text, "".join(deltas), answer.finish_reason) == (
        "Let me look at it.", "Let me look at it.", "stop")
    assert (answer.prompt_tokens, answer.completion_tokens) == (120, 9)
    assert called.text == "First:" and called.finish_reason == "tool_calls"
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in called.tool_calls] == [
        ("read_file", '{"path": "a.py"}')]
    assert (len(chunks_litellm_made) == 0) == (route == "openai")


async def test_a_stream_that_stops_before_its_finish_reason_is_a_cut(fake_llm):
    fake_llm.push(text("half an ans", finish_reason=None))
    with pytest.raises(ModelError) as cut:
        await answer_of(fake_llm)
    assert cut.value.kind == "stream_cut" and cut.value.partial.text == "half an ans"
    fake_llm.push(text("", finish_reason=None))
    with pytest.raises(ModelError) as empty:
        await answer_of(fake_llm)
    assert empty.value.kind == "connection" and empty.value.retryable


@pytest.mark.parametrize("reason", ["error", "abort"])
async def test_a_finish_reason_of_failure_is_the_servers_error(fake_llm, reason):
    fake_llm.push(text("", finish_reason=reason))
    with pytest.raises(ModelError) as failed:
        await answer_of(fake_llm)
    assert failed.value.kind == "server" and reason in failed.value.message
    fake_llm.push(text("partial", finish_reason=reason))
    with pytest.raises(ModelError) as cut:
        await answer_of(fake_llm)
    assert cut.value.kind == "stream_cut" and cut.value.partial.text == "partial"


async def test_a_cut_mid_answer_keeps_what_came(fake_llm):
    fake_llm.push(cut_stream("The first half"))
    with pytest.raises(ModelError) as cut:
        await answer_of(fake_llm)
    assert cut.value.kind == "stream_cut" and cut.value.partial.text == "The first half"


@pytest.mark.parametrize("route", ["openai", "hosted_vllm"])
async def test_an_error_event_mid_answer_is_the_servers_error(fake_llm, route):
    fake_llm.push(error_mid_stream("The first half", "the model crashed while generating"))
    model = f"{route}/{fake_llm.model.split('/', 1)[1]}"
    with pytest.raises(ModelError) as failed:
        await answer_of(fake_llm, model)
    assert failed.value.partial.text == "The first half"
    assert "the model crashed while generating" in failed.value.message
    assert failed.value.kind == "stream_cut"  # what came is kept, as for a cut


LOOPING = "I added the function. " + "I did not read any file. I did not write any file. " * 12


@pytest.mark.parametrize("route", ["openai", "hosted_vllm"])
async def test_words_going_round_in_circles_end_where_the_round_began(fake_llm, route):
    fake_llm.push(text(LOOPING, chunk_size=4), text(LOOPING, chunk_size=4))
    model = f"{route}/{fake_llm.model.split('/', 1)[1]}"
    settings = replace(settings_for(fake_llm, model), stop_repeats=True)
    deltas: list[str] = []
    watched = await stream_completion(settings, [{"role": "user", "content": "hi"}], [],
                                      deltas.append)
    assert watched.text == "I added the function. I did not read any file. I did not write any file. "
    assert watched.finish_reason == "repeated"
    assert len("".join(deltas)) < len(LOOPING) / 2  # the rest was never read
    unwatched, _ = await answer_of(fake_llm, model)
    assert unwatched.text == LOOPING and unwatched.finish_reason == "stop"


@pytest.mark.parametrize("words, kept", [
    # Said twice, a sentence is a summary restating itself, not a loop.
    ("The port is 8080. It is set in app.py. The port is 8080. It is set in app.py. ", None),
    # Short sentences do not count.
    ("Done. " * 30, None),
    # Inside a JSON string the lines end in an escaped newline; the round began before the
    # sentence said thrice, which the JSON around it made unique the first time.
    ('{"action": "answer", "text": "Fixed app.py.\\nI ran the tests.\\nFixed app.py.\\n'
     'I ran the tests.\\nFixed app.py.\\nI ran the tests.\\nFixed app.py.\\n',
     '{"action": "answer", "text": "Fixed app.py.\\nI ran the tests.\\n'),
    # A sentence with a dot inside (a file name) is still one sentence.
    ("I edited a.py and b.py. I ran pytest on tests/test_a.py. " * 4,
     "I edited a.py and b.py. I ran pytest on tests/test_a.py. "),
])
def test_which_words_are_cut_as_a_repeat(words, kept):
    cut = RepeatWatch().cut([words])
    assert (words[:cut] if cut is not None else None) == kept


def test_the_repeat_watch_reads_again_only_after_more_text():
    # Three sayings are whole at 75 characters; the words are read again at 80.
    watch, parts = RepeatWatch(), []
    for piece in "I did not read any file. " * 4:
        parts.append(piece)
        if (cut := watch.cut(parts)) is not None:
            break
    assert cut == len("I did not read any file. ")
    assert len("".join(parts)) == REPEAT_CHECK_CHARS == 80


@pytest.mark.parametrize("route", ["openai", "hosted_vllm"])
async def test_a_stream_that_stalls_past_the_timeout_keeps_what_came(fake_llm, route):
    fake_llm.push(text("the first words", chunk_size=100, delay=2.0))  # then a long pause
    settings = replace(settings_for(fake_llm, f"{route}/{fake_llm.model.split('/', 1)[1]}"),
                       timeout_s=0.5)
    with pytest.raises(ModelError) as stalled:
        await stream_completion(settings, [{"role": "user", "content": "hi"}], [],
                                lambda _: None)
    assert stalled.value.kind == "stream_cut" and "timed out" in stalled.value.message
    assert stalled.value.partial.text == "the first words"


async def test_server_sent_events_are_read_as_the_protocol_says():
    async def lines():
        for line in [": a comment", "event: message", 'data: {"a":', 'data:1}', "", "",
                     "id: 7", "data: [DONE]", "", "data: no blank line after it"]:
            yield line

    assert [data async for data in event_data(lines())] == [
        '{"a":\n1}', "[DONE]", "no blank line after it"]
