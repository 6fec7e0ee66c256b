"""A scripted fake OpenAI-compatible chat-completions server.

Tests, benchmarks and demos talk to it through LiteLLM exactly as they would talk to a real
provider: a real HTTP server on 127.0.0.1, streamed SSE, OpenAI-shaped tool-call deltas.
Each request to ``/v1/chat/completions`` consumes the next scripted response; every request
body is recorded so tests can assert on what the agent sent.

Standard library only, so it also runs as a separate process::

    python -m vibe_tui.testing.fake_llm --port 0 --script script.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeLLM",
    "Text",
    "ToolCall",
    "ToolCalls",
    "Error",
    "CutStream",
    "Hold",
    "Response",
    "text",
    "tool_call",
    "tool_calls",
    "error",
    "cut_stream",
    "hold",
    "response_from_json",
]

MODEL_ID = "fake-model"
HOLD_TIMEOUT = 30.0
EXHAUSTED_TEXT = "(fake-llm: script exhausted)"
# Matched by LiteLLM's context-window detection ("this model's maximum context length is"),
# so error(400) surfaces as litellm.ContextWindowExceededError.
CONTEXT_OVERFLOW_MESSAGE = (
    "This model's maximum context length is 8192 tokens. However, your messages resulted in "
    "9000 tokens. Please reduce the length of the messages."
)


# ---------------------------------------------------------------------------------------------
# Scripted responses


@dataclass(frozen=True)
class Text:
    content: str
    chunk_size: int = 8
    delay: float = 0.0
    usage: tuple[int, int] | None = None
    rate: float = 0.0  # deltas per second, paced against the clock; 0: as fast as possible
    finish_reason: str = "stop"  # "length": the answer ran into max_tokens


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # sent verbatim, so malformed JSON can be scripted
    id: str | None = None  # None: the server assigns call_1, call_2, ...


@dataclass(frozen=True)
class ToolCalls:
    calls: tuple[ToolCall, ...]
    content: str = ""
    delay: float = 0.0


@dataclass(frozen=True)
class Error:
    status: int
    message: str
    type: str
    code: str | None
    retry_after: float | None = None


@dataclass(frozen=True)
class CutStream:
    content: str
    chunk_size: int = 8


@dataclass(frozen=True)
class Hold:
    response: Response


Response = Text | ToolCalls | Error | CutStream | Hold


def text(
    content: str,
    *,
    chunk_size: int = 8,
    delay: float = 0.0,
    usage: tuple[int, int] | None = None,
    rate: float = 0.0,
    finish_reason: str = "stop",
) -> Text:
    """Streamed assistant text, `chunk_size` characters per delta, `delay` s between deltas.

    `rate` paces the deltas at that many per second against the clock, so the time spent
    encoding and writing each one does not slow the stream down (as summed delays would):
    with `chunk_size=4`, a delta is about one token and `rate` is tokens per second."""
    if rate < 0:
        raise ValueError(f"rate must be >= 0, got {rate}")
    return Text(content, max(1, chunk_size), delay, usage, rate, finish_reason)


def tool_call(name: str, args: dict[str, Any] | str, *, id: str | None = None) -> ToolCall:
    """One tool call; a dict is JSON-encoded, a str is sent as-is (malformed JSON allowed)."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    return ToolCall(name, arguments, id)


def tool_calls(*calls: ToolCall, content: str = "", delay: float = 0.0) -> ToolCalls:
    """One assistant turn: optional text first, then the tool calls (finish_reason tool_calls)."""
    return ToolCalls(tuple(calls), content, delay)


# status -> (default message, error type, error code), shaped like OpenAI's own errors.
_ERROR_DEFAULTS: dict[int, tuple[str, str, str | None]] = {
    400: (CONTEXT_OVERFLOW_MESSAGE, "invalid_request_error", "context_length_exceeded"),
    401: ("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key"),
    403: ("You are not allowed to use this model.", "invalid_request_error", "permission_denied"),
    404: (
        f"The model `{MODEL_ID}` does not exist or you do not have access to it.",
        "invalid_request_error",
        "model_not_found",
    ),
    429: ("Rate limit reached for requests.", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request.", "server_error", None),
    503: ("The engine is currently overloaded, please try again later.", "server_error", None),
}


def error(status: int, message: str | None = None, *, retry_after: float | None = None) -> Error:
    """An HTTP error with an OpenAI-style JSON body; `retry_after` sets the Retry-After header.

    `message=None` picks a per-status default; for 400 that is a context-overflow message.
    LiteLLM decides "context window exceeded" from the message text alone (it must contain
    "This model's maximum context length is", case-insensitive); the body's `code` is not used.
    """
    default_message, type_, code = _ERROR_DEFAULTS.get(
        status, ("Fake error.", "server_error" if status >= 500 else "invalid_request_error", None)
    )
    if message is None:
        message = default_message
    elif status == 400:
        # A caller-supplied 400 is a context overflow only if it says so.
        code = "context_length_exceeded" if "maximum context length" in message else None
    return Error(status, message, type_, code, retry_after)


def cut_stream(content: str) -> CutStream:
    """Start streaming `content`, then drop the connection without finish chunk or [DONE]."""
    return CutStream(content)


def hold(response: Response) -> Hold:
    """Send nothing until `FakeLLM.release()` (or HOLD_TIMEOUT s), then send `response`."""
    return Hold(response)


def response_from_json(item: dict[str, Any]) -> Response:
    """Build a response from the CLI's JSON script format, e.g. ``{"text": "hi"}``."""
    if "hold" in item:
        return hold(response_from_json(item["hold"]))
    if "text" in item:
        usage = tuple(item["usage"]) if "usage" in item else None
        return text(
            item["text"],
            chunk_size=item.get("chunk_size", 8),
            delay=item.get("delay", 0.0),
            usage=usage,  # type: ignore[arg-type]
            rate=item.get("rate", 0.0),
        )
    if "tool_calls" in item:
        calls = [tool_call(c["name"], c.get("args", {}), id=c.get("id")) for c in item["tool_calls"]]
        return tool_calls(*calls, content=item.get("content", ""), delay=item.get("delay", 0.0))
    if "error" in item:
        return error(item["error"], item.get("message"), retry_after=item.get("retry_after"))
    if "cut_stream" in item:
        return cut_stream(item["cut_stream"])
    raise ValueError(f"unknown fake-llm script item: {item!r}")


# ---------------------------------------------------------------------------------------------
# Rendering: a response as OpenAI wire messages


@dataclass
class _Turn:
    """What one served response says, after ids and usage are resolved."""

    content: str
    calls: list[tuple[str, str, str]]  # (id, name, arguments)
    usage: dict[str, int]
    chunk_size: int = 8
    delay: float = 0.0
    finish_reason: str = "stop"
    rate: float = 0.0
    id: str = field(default_factory=lambda: f"chatcmpl-fake-{next(_completion_ids)}")


_completion_ids = itertools.count(1)


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _estimate_prompt_tokens(body: dict[str, Any]) -> int:
    # Rough chars/4: enough for context-usage displays; content parts count as their JSON.
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if content:
            total += len(content) if isinstance(content, str) else len(json.dumps(content))
    return total // 4


def _pieces_of(s: str, size: int) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)]


def _split_into(s: str, n: int) -> list[str]:
    """`s` in at most `n` nearly equal pieces; an empty string stays one empty piece."""
    return _pieces_of(s, -(-len(s) // n)) if s else [""]


def _argument_fragments(arguments: str) -> list[str]:
    # 2-4 fragments per call, like a real model streaming a JSON string token by token.
    pieces = 2 if len(arguments) < 12 else 3 if len(arguments) < 40 else 4
    return _split_into(arguments, pieces)


class _Chunks:
    """Builds chat.completion.chunk objects for one turn."""

    def __init__(self, turn: _Turn, model: str) -> None:
        self.turn, self.model, self.created = turn, model, int(time.time())

    def _envelope(self) -> dict[str, Any]:
        return {"id": self.turn.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model}

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {**self._envelope(), "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    def usage_chunk(self) -> dict[str, Any]:
        # Sent only on stream_options.include_usage, after the finish chunk, like OpenAI.
        return {**self._envelope(), "choices": [], "usage": self.turn.usage}

    def content_deltas(self) -> Iterator[dict[str, Any]]:
        for piece in _pieces_of(self.turn.content, self.turn.chunk_size):
            yield self.chunk({"content": piece})

    def call_deltas(self) -> Iterator[dict[str, Any]]:
        for index, (call_id, name, arguments) in enumerate(self.turn.calls):
            # The first delta of a call names it; later ones only carry argument fragments.
            head = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
            yield self.chunk({"tool_calls": [head]})
            for fragment in _argument_fragments(arguments):
                yield self.chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})

    def body(self) -> Iterator[dict[str, Any]]:
        """Every chunk of a complete stream except the usage chunk."""
        yield self.chunk({"role": "assistant"})
        yield from self.content_deltas()
        yield from self.call_deltas()
        yield self.chunk({}, self.turn.finish_reason)


def _completion_json(turn: _Turn, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
    if turn.calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in turn.calls
        ]
    return {
        "id": turn.id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": turn.finish_reason}],
        "usage": turn.usage,
    }


# ---------------------------------------------------------------------------------------------
# HTTP


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck handler never keeps the process alive
    fake: FakeLLM

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-response (interrupts, cancelled streams) are expected.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 so the stream can use chunked encoding: a stream cut before its terminating
    # chunk is then a protocol error for the client, not a silent clean end of body.
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    # --- routing

    def do_GET(self) -> None:
        path = self.path.rstrip("/")
        if path in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [_model_entry()]})
        elif path == "/_fake/requests":
            self._send_json(200, self.server.fake.requests)
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        path = self.path.rstrip("/")
        body = self._read_body()
        if path in ("/v1/chat/completions", "/chat/completions"):
            self._chat(body)
        elif path == "/_fake/release":  # lets an out-of-process test release a hold()
            self.server.fake.release()
            self._send_json(200, {"released": True})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    # --- chat

    def _chat(self, raw: bytes) -> None:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        response = self.server.fake._next_response(body)
        while isinstance(response, Hold):
            self.server.fake._wait_released()
            response = response.response
        self._respond(body, response)

    def _respond(self, body: dict[str, Any], response: Response) -> None:
        model = str(body.get("model") or MODEL_ID)
        if isinstance(response, Error):
            self._send_error(response)
            return
        turn = self.server.fake._turn(body, response)
        if not body.get("stream"):
            self._send_json(200, _completion_json(turn, model), cut=isinstance(response, CutStream))
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self._stream(_Chunks(turn, model), include_usage, cut=isinstance(response, CutStream))

    def _stream(self, chunks: _Chunks, include_usage: bool, *, cut: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self._end_headers_closing()
        events = list(chunks.body())
        if cut:
            # Role + content only: no finish chunk, no [DONE], no terminating HTTP chunk.
            self._send_events(events[:-1], chunks.turn)
            return
        if include_usage:
            events.append(chunks.usage_chunk())
        self._send_events(events, chunks.turn)
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")  # terminating zero-length chunk: a clean end of the body

    def _send_events(self, events: list[dict[str, Any]], turn: _Turn) -> None:
        started = time.perf_counter()
        for n, event in enumerate(events):
            # Delay only between content/argument deltas, not before the role chunk.
            if turn.delay and n > 1:
                time.sleep(turn.delay)
            if turn.rate and n > 1:
                time.sleep(max(0.0, started + (n - 1) / turn.rate - time.perf_counter()))
            self._write_chunk(b"data: " + json.dumps(event).encode() + b"\n\n")

    # --- low level

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _end_headers_closing(self) -> None:
        # One request per connection: clients never wait on a kept-alive socket.
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _send_json(self, status: int, payload: Any, *, headers: dict[str, str] | None = None, cut: bool = False) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self._end_headers_closing()
        # A cut non-streamed response stops half-way through its promised Content-Length.
        self.wfile.write(data[: len(data) // 2] if cut else data)
        self.wfile.flush()

    def _send_error(self, err: Error) -> None:
        headers = {}
        if err.retry_after is not None:
            headers["Retry-After"] = f"{err.retry_after:g}"
        payload = {"error": {"message": err.message, "type": err.type, "param": None, "code": err.code}}
        self._send_json(err.status, payload, headers=headers)


def _model_entry() -> dict[str, Any]:
    return {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "vibe-tui-fake"}


# ---------------------------------------------------------------------------------------------
# The server object


Responder = Callable[[dict[str, Any]], Response]


class FakeLLM:
    """A scripted OpenAI-compatible server on 127.0.0.1, running in a daemon thread."""

    model = f"openai/{MODEL_ID}"  # the LiteLLM model string for this server

    def __init__(
        self,
        script: Iterable[Response] | None = None,
        *,
        responder: Responder | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        default: Response | None = None,
    ) -> None:
        self._script: deque[Response] = deque(script or ())
        self._responder = responder
        self._default = default
        self._host, self._port = host, port
        self._lock = threading.Condition()
        self._requests: list[dict[str, Any]] = []
        self._releases = 0
        self._stopping = False
        self._call_ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle

    def start(self) -> FakeLLM:
        if self._server is not None:
            return self
        server = _Server((self._host, self._port), _Handler)
        server.fake = self
        self._server, self._port, self._stopping = server, server.server_address[1], False
        # A short poll interval keeps stop() (shutdown waits one poll) fast.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"fake-llm:{self._port}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._stopping = True  # wakes held responses so their threads finish
            self._lock.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- public state

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self._port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Chat request bodies received so far, oldest first (a snapshot copy)."""
        with self._lock:
            return list(self._requests)

    def push(self, *responses: Response) -> None:
        with self._lock:
            self._script.extend(responses)

    def release(self) -> None:
        """Let one held response proceed (a release before the request arrives is banked)."""
        with self._lock:
            self._releases += 1
            self._lock.notify_all()

    def wait_for_requests(self, n: int, timeout: float = 10) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: len(self._requests) >= n, timeout)

    # --- used by the handler threads

    def _next_response(self, body: dict[str, Any]) -> Response:
        with self._lock:
            self._requests.append(body)  # recorded before anything is sent back
            self._lock.notify_all()
            if self._script:
                return self._script.popleft()
        if self._responder is not None:
            try:
                return self._responder(body)
            except Exception as exc:  # a broken responder should fail the test loudly, not hang it
                traceback.print_exc()
                return error(500, f"fake-llm responder failed: {exc!r}")
        return self._default if self._default is not None else text(EXHAUSTED_TEXT)

    def _wait_released(self) -> None:
        with self._lock:
            self._lock.wait_for(lambda: self._releases > 0 or self._stopping, HOLD_TIMEOUT)
            if self._releases > 0:
                self._releases -= 1

    def _turn(self, body: dict[str, Any], response: Response) -> _Turn:
        if isinstance(response, ToolCalls):
            calls = [(c.id or self._new_call_id(), c.name, c.arguments) for c in response.calls]
            produced = len(response.content) + sum(len(a) for _, _, a in calls)
            usage = _usage(_estimate_prompt_tokens(body), produced // 4 + 1)
            return _Turn(response.content, calls, usage, delay=response.delay, finish_reason="tool_calls")
        if isinstance(response, CutStream):
            usage = _usage(_estimate_prompt_tokens(body), len(response.content) // 4 + 1)
            return _Turn(response.content, [], usage, chunk_size=response.chunk_size)
        assert isinstance(response, Text), response
        prompt, completion = response.usage or (_estimate_prompt_tokens(body), len(response.content) // 4 + 1)
        return _Turn(
            response.content, [], _usage(prompt, completion), response.chunk_size, response.delay, rate=response.rate,
            finish_reason=response.finish_reason,
        )

    def _new_call_id(self) -> str:
        with self._lock:
            return f"call_{next(self._call_ids)}"


# ---------------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Scripted fake OpenAI-compatible server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON list, e.g. [{\"text\": \"hi\"}]")
    args = parser.parse_args(argv)
    script = []
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            script = [response_from_json(item) for item in json.load(f)]
    llm = FakeLLM(script, host=args.host, port=args.port).start()
    print(f"READY {llm.base_url}", flush=True)  # the parent process waits for this line
    try:
        threading.Event().wait()  # serve until killed
    except KeyboardInterrupt:
        pass
    finally:
        llm.stop()


if __name__ == "__main__":
    main()
