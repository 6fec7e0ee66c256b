"""What the fake model server answers, one scripted response per request: text, tool calls,
HTTP errors shaped like OpenAI's, a stream cut short, or a response held until released.
``response_from_json`` reads the ``script.json`` format of ``vibe-tui eval --scripted``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MODEL_ID = "fake-model"
# Matched by LiteLLM's context-window detection ("this model's maximum context length is"),
# so error(400) surfaces as litellm.ContextWindowExceededError.
CONTEXT_OVERFLOW_MESSAGE = (
    "This model's maximum context length is 8192 tokens. However, your messages resulted in "
    "9000 tokens. Please reduce the length of the messages."
)


@dataclass(frozen=True)
class Text:
    content: str
    chunk_size: int = 8
    delay: float = 0.0
    usage: tuple[int, int] | None = None
    rate: float = 0.0  # deltas per second, paced against the clock; 0: as fast as possible
    # "length": the answer ran into max_tokens; None: the stream ends cleanly without one.
    finish_reason: str | None = "stop"


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
    error: str | None = None  # sent as an error event before a clean end, not a cut


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
    finish_reason: str | None = "stop",
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


def error_mid_stream(content: str, message: str) -> CutStream:
    """Start streaming `content`, then send an error event and end the stream cleanly, as
    llama.cpp's server does when generation fails after the answer began."""
    return CutStream(content, error=message)


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
