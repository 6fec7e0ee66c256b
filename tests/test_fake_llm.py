"""The fake model server, exercised through LiteLLM exactly as the engine uses it."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # before the import: no network fetch

import litellm  # noqa: E402
import pytest  # noqa: E402
from litellm.exceptions import MidStreamFallbackError  # noqa: E402

from vibe_tui.testing.fake_llm import FakeLLM
from vibe_tui.testing.script import (
    cut_stream,
    error,
    hold,
    response_from_json,
    text,
    tool_call,
    tool_calls,
)

litellm.suppress_debug_info = True

MESSAGES = [{"role": "user", "content": "What is in a.py?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
]


async def stream(llm: FakeLLM, **kwargs) -> list:
    """One streamed completion, all chunks collected."""
    response = await litellm.acompletion(
        model=llm.model,
        api_base=llm.base_url,
        api_key="sk-test",
        messages=MESSAGES,
        tools=TOOLS,
        stream=True,
        num_retries=0,
        stream_options={"include_usage": True},
        **kwargs,
    )
    return [chunk async for chunk in response]


def content_of(chunks: list) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def post_raw(llm: FakeLLM, body: dict) -> tuple[int, dict[str, str], bytes]:
    """A chat request without LiteLLM, to see the exact wire format."""
    conn = http.client.HTTPConnection("127.0.0.1", llm.port, timeout=10)
    conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, dict(resp.getheaders()), data


async def handlers_finished(timeout: float = 5) -> None:
    """Wait for the server's per-request threads (ThreadingMixIn names them) to end."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while any("process_request_thread" in t.name for t in threading.enumerate()):
        assert loop.time() < deadline, "fake-llm handler still running"
        await asyncio.sleep(0.01)


def sse_events(data: bytes) -> list:
    lines = [line[len("data: ") :] for line in data.decode().split("\n\n") if line]
    return [line if line == "[DONE]" else json.loads(line) for line in lines]


# --- streaming through LiteLLM


async def test_streamed_text_reassembles_and_usage_arrives(fake_llm):
    fake_llm.push(text("The answer is 42, obviously.", chunk_size=5, usage=(11, 7)))
    chunks = await stream(fake_llm)
    assert content_of(chunks) == "The answer is 42, obviously."
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.content) == 6  # 28 chars / 5
    usage = [c.usage for c in chunks if getattr(c, "usage", None)]
    assert (usage[-1].prompt_tokens, usage[-1].completion_tokens) == (11, 7)


async def test_request_is_recorded_with_messages_and_tools(fake_llm):
    fake_llm.push(text("ok"))
    await stream(fake_llm)
    assert fake_llm.wait_for_requests(1, timeout=0)
    [request] = fake_llm.requests
    assert request["messages"] == MESSAGES
    assert request["tools"][0]["function"]["name"] == "read_file"
    assert request["stream"] is True
    assert request["stream_options"] == {"include_usage": True}


async def test_tool_call_deltas_reassemble(fake_llm):
    fake_llm.push(
        tool_calls(
            tool_call("read_file", {"path": "a.py"}),
            tool_call("read_file", {"path": "b.py"}, id="call_custom"),
            content="Let me look.",
        )
    )
    chunks = await stream(fake_llm)
    assert content_of(chunks) == "Let me look."
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]
    message = litellm.stream_chunk_builder(chunks, messages=MESSAGES).choices[0].message
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
    assert calls == [("call_1", "read_file", {"path": "a.py"}), ("call_custom", "read_file", {"path": "b.py"})]


async def test_default_call_ids_are_unique_across_responses(fake_llm):
    fake_llm.push(tool_calls(tool_call("a", {})), tool_calls(tool_call("b", {})))
    ids = []
    for _ in range(2):
        message = litellm.stream_chunk_builder(await stream(fake_llm), messages=MESSAGES).choices[0].message
        ids.append(message.tool_calls[0].id)
    assert ids == ["call_1", "call_2"]


async def test_malformed_arguments_are_delivered_verbatim(fake_llm):
    fake_llm.push(tool_calls(tool_call("read_file", '{"path": "a.py"')))
    message = litellm.stream_chunk_builder(await stream(fake_llm), messages=MESSAGES).choices[0].message
    assert message.tool_calls[0].function.arguments == '{"path": "a.py"'


def test_wire_format_matches_openai_streaming(fake_llm):
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "some/long/path/to/a/file.py"})))
    status, headers, data = post_raw(fake_llm, {"model": "fake-model", "messages": MESSAGES, "stream": True})
    assert status == 200 and headers["Content-Type"] == "text/event-stream"
    events = sse_events(data)
    assert events[-1] == "[DONE]"
    deltas = [e["choices"][0]["delta"] for e in events[:-1]]
    assert deltas[0] == {"role": "assistant"}
    head, *fragments = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert head == {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": ""}}
    assert 2 <= len(fragments) <= 4 and all(set(f) == {"index", "function"} for f in fragments)
    assert "".join(f["function"]["arguments"] for f in fragments) == '{"path": "some/long/path/to/a/file.py"}'
    # No stream_options.include_usage in this request: so no usage chunk.
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls" and "usage" not in events[-2]


# --- errors, as LiteLLM maps them


async def test_rate_limit_exposes_retry_after(fake_llm):
    fake_llm.push(error(429, retry_after=2))
    with pytest.raises(litellm.RateLimitError) as info:
        await stream(fake_llm)
    # The engine can read Retry-After from either of these (both are httpx.Headers,
    # case-insensitive): `exc.litellm_response_headers` (set by LiteLLM) or `exc.response.headers`
    # (the httpx.Response). `exc.headers` is None here, don't rely on it.
    assert info.value.litellm_response_headers["retry-after"] == "2"
    assert info.value.response.headers["Retry-After"] == "2"
    assert info.value.status_code == 429


@pytest.mark.parametrize(
    ("response", "exc_type"),
    [
        (error(401), litellm.AuthenticationError),
        (error(404), litellm.NotFoundError),
        (error(400), litellm.ContextWindowExceededError),  # default 400 message is a context overflow
        (error(400, "This model's maximum context length is 4096 tokens."), litellm.ContextWindowExceededError),
        (error(500), litellm.InternalServerError),
        (error(503), litellm.ServiceUnavailableError),
    ],
)
async def test_errors_map_to_litellm_exceptions(fake_llm, response, exc_type):
    # ContextWindowExceededError needs the phrase "this model's maximum context length is"
    # (case-insensitive) in the message; "maximum context length" alone is not matched.
    fake_llm.push(response)
    with pytest.raises(exc_type):
        await stream(fake_llm)


@pytest.mark.parametrize("message", ["Invalid value for 'tools'.", "Request exceeds maximum context length"])
async def test_other_bad_request_is_not_a_context_overflow(fake_llm, message):
    # The second one shows the exact phrase matters: "maximum context length" alone is a plain 400.
    fake_llm.push(error(400, message))
    with pytest.raises(litellm.BadRequestError) as info:
        await stream(fake_llm)
    assert not isinstance(info.value, litellm.ContextWindowExceededError)


async def test_cut_stream_raises_after_partial_content(fake_llm):
    fake_llm.push(cut_stream("partial answer"))
    received = []
    # LiteLLM raises litellm.exceptions.MidStreamFallbackError (a litellm.ServiceUnavailableError, status
    # 503) whose `.original_exception` is a litellm.APIConnectionError; underneath:
    # openai.APIConnectionError <- httpx.ReadError <- aiohttp ClientPayloadError
    # (incomplete chunked body). Catch litellm.APIError / ServiceUnavailableError, not httpx.
    with pytest.raises(litellm.ServiceUnavailableError) as info:
        async for chunk in await litellm.acompletion(
            model=fake_llm.model, api_base=fake_llm.base_url, api_key="sk-test",
            messages=MESSAGES, stream=True, num_retries=0,
        ):
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "partial answer"
    assert isinstance(info.value, MidStreamFallbackError)
    assert isinstance(info.value.original_exception, litellm.APIConnectionError)


# --- control


async def test_hold_blocks_until_release(fake_llm):
    fake_llm.push(hold(text("released")))
    task = asyncio.create_task(stream(fake_llm))
    assert await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    done, _ = await asyncio.wait({task}, timeout=0.2)  # the request is in, nothing comes back
    assert not done
    fake_llm.release()
    assert content_of(await asyncio.wait_for(task, 10)) == "released"


async def test_client_hanging_up_mid_stream_is_quiet(fake_llm, capfd):
    # What an interrupt looks like from the server: the client drops a slow stream.
    fake_llm.push(text("slow tokens " * 20, chunk_size=1, delay=0.01), text("next"))
    response = await litellm.acompletion(
        model=fake_llm.model, api_base=fake_llm.base_url, api_key="sk-test", messages=MESSAGES, stream=True
    )
    async for _ in response:
        break
    await response.aclose()  # closes the connection; the server's next write fails
    await handlers_finished()
    assert content_of(await stream(fake_llm)) == "next"
    assert "Traceback" not in capfd.readouterr().err


async def test_exhausted_script_default_and_responder():
    with FakeLLM() as llm:
        assert content_of(await stream(llm)) == "(fake-llm: script exhausted)"
    with FakeLLM([text("scripted")], default=text("fallback")) as llm:
        assert [content_of(await stream(llm)) for _ in range(2)] == ["scripted", "fallback"]
    with FakeLLM(responder=lambda body: text(f"{len(body['messages'])} messages")) as llm:
        assert content_of(await stream(llm)) == "1 messages"


def test_non_streamed_completion_through_litellm(fake_llm):
    # Sync client, from a sync test: the server thread serves both.
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "a.py"}), content="Looking."))
    response = litellm.completion(
        model=fake_llm.model, api_base=fake_llm.base_url, api_key="sk-test",
        messages=MESSAGES, tools=TOOLS, num_retries=0,
    )
    message = response.choices[0].message
    assert message.content == "Looking."
    assert (message.tool_calls[0].id, message.tool_calls[0].function.arguments) == ("call_1", '{"path": "a.py"}')
    assert response.choices[0].finish_reason == "tool_calls"
    assert response.usage.completion_tokens > 0
    assert fake_llm.requests[0].get("stream") in (None, False)


def test_models_endpoint(fake_llm):
    with urllib.request.urlopen(f"{fake_llm.base_url}/models", timeout=10) as resp:
        assert json.load(resp)["data"][0]["id"] == "fake-model"


# --- command line


def test_cli_prints_ready_and_serves(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "hi from cli"}, {"tool_calls": [{"name": "bash", "args": {"command": "ls"}}]}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "vibe_tui.testing.fake_llm", "--port", "0", "--script", str(script)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("READY http://127.0.0.1:")
        llm = FakeLLM(port=int(line.rsplit(":", 1)[1].split("/")[0]))  # only to build the URL
        status, _, data = post_raw(llm, {"model": "fake-model", "messages": MESSAGES, "stream": True})
        assert status == 200
        assert "".join(e["choices"][0]["delta"].get("content", "") for e in sse_events(data)[:-1]) == "hi from cli"
        _, _, data = post_raw(llm, {"model": "fake-model", "messages": MESSAGES})
        assert json.loads(data)["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "bash"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_rate_paces_text_deltas_against_the_clock():
    # 20 deltas at 20/s: the last is sent 19/20 s after the first, so no shorter stream.
    with FakeLLM([text("abcd" * 20, chunk_size=4, rate=20)]) as llm:
        started = time.perf_counter()
        chunks = await stream(llm)
        elapsed = time.perf_counter() - started
    assert content_of(chunks) == "abcd" * 20
    assert elapsed >= 19 / 20


def test_rate_from_the_json_script_and_checked():
    assert response_from_json({"text": "hi", "rate": 50}).rate == 50
    assert response_from_json({"text": "hi"}).rate == 0
    with pytest.raises(ValueError, match="rate"):
        text("hi", rate=-1)
