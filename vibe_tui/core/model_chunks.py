"""What the chunks of a streamed answer carry: text, tool-call fragments (assembled here),
usage, and llama.cpp's prompt-processing progress; and which stream they are read from."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from collections.abc import Callable
from typing import Any


def field(value: Any, name: str) -> Any:
    """``name`` of a chunk or a part of one: a dict where the chunk was read from the
    server's events here, an object where LiteLLM made it."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


class ToolCallAssembler:
    """Tool calls arrive as fragments keyed by index; the first carries id and name."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}

    @property
    def started(self) -> bool:
        return bool(self._calls)

    def add(self, delta: Any) -> None:
        index = field(delta, "index")
        if index is None:
            index = len(self._calls)
        call = self._calls.setdefault(
            index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if call_id := field(delta, "id"):
            call["id"] = call_id
        function = field(delta, "function")
        if function is not None:
            if name := field(function, "name"):
                call["function"]["name"] = name
            if arguments := field(function, "arguments"):
                call["function"]["arguments"] += arguments

    def calls(self) -> list[dict[str, Any]]:
        result = []
        for index in sorted(self._calls):
            call = self._calls[index]
            if not call["id"]:
                # Some local servers send no id. Views and the history key calls by id,
                # so it must be unique in the session, not just in this response.
                call["id"] = f"call_{secrets.token_hex(6)}"
            result.append(call)
        return [c for c in result if c["function"]["name"]]


def report_progress(chunk: Any, on_progress: Callable[[int, int], None]) -> None:
    """llama.cpp's ``prompt_progress`` (total, cache, processed), kept by LiteLLM as an
    extra field of the chunk."""
    progress = field(chunk, "prompt_progress")
    if progress is None and not isinstance(chunk, dict):
        progress = (getattr(chunk, "model_extra", None) or {}).get("prompt_progress")
    if not isinstance(progress, dict):
        return
    try:
        total = int(progress.get("total", 0))
        done = int(progress.get("processed", 0)) + int(progress.get("cache", 0))
    except (TypeError, ValueError):
        return
    if total > 0:
        on_progress(min(done, total), total)


def absorb_chunk(chunk, response, assembler, text_parts, on_text) -> None:
    usage = field(chunk, "usage")
    if usage:
        response.prompt_tokens = field(usage, "prompt_tokens") or 0
        response.completion_tokens = field(usage, "completion_tokens") or 0
        response.cached_tokens = cached_tokens(usage)
    for choice in field(chunk, "choices") or []:
        delta = field(choice, "delta")
        if delta is not None:
            content = field(delta, "content")
            if content:
                text_parts.append(content)
                on_text(content)
            for call_delta in field(delta, "tool_calls") or []:
                assembler.add(call_delta)
        if finish_reason := field(choice, "finish_reason"):
            response.finish_reason = finish_reason


def cached_tokens(usage: Any) -> int:
    """Prompt tokens read from the provider's cache: OpenAI reports them in
    ``prompt_tokens_details``, Anthropic (through LiteLLM) as ``cache_read_input_tokens``."""
    details = field(usage, "prompt_tokens_details")
    value = field(details, "cached_tokens") if details is not None else None
    if not value:
        value = field(usage, "cache_read_input_tokens")
    return value if isinstance(value, int) else 0


class Reading:
    """One answer as its chunks arrive: the text (handed on as it comes), the tool calls,
    the usage, how the stream ended."""

    def __init__(self, response: Any, on_text: Callable[[str], None],
                 on_progress: Callable[[int, int], None] | None, stop_repeats: bool) -> None:
        self.response = response
        self.text_parts: list[str] = []
        self.assembler = ToolCallAssembler()
        self.end = StreamEnd()
        self._on_text = on_text
        self._on_progress = on_progress
        self._watch = RepeatWatch() if stop_repeats else None
        self._started = time.monotonic()

    def take(self, chunk: Any) -> bool:
        """Read one chunk; False when the words began repeating (the text ends before)."""
        if self._on_progress is not None:
            report_progress(chunk, self._on_progress)
        self.end.see(chunk)
        absorb_chunk(chunk, self.response, self.assembler, self.text_parts, self._on_text)
        if self.response.first_token_s is None and (self.text_parts or self.assembler.started):
            self.response.first_token_s = time.monotonic() - self._started
        if self._watch is None or (cut := self._watch.cut(self.text_parts)) is None:
            return True
        self.text_parts[:] = ["".join(self.text_parts)[:cut]]
        self.end.reason = self.response.finish_reason = "repeated"
        return False

    @property
    def text(self) -> str:
        return "".join(self.text_parts)


def openai_stream(wrapper: Any) -> ServerEvents | None:
    """The events of the response under LiteLLM's stream, where LiteLLM reached the
    provider through the openai SDK (OpenAI and the servers that speak its protocol); None
    otherwise. Reading them skips what LiteLLM adds to each chunk (a response object of its
    own, copied and checked), its rebuild of the whole answer at the end, and the SDK's
    typed object per chunk: four fifths of the stream's CPU, for logging, pricing and
    types we do not use, since the answer is assembled here."""
    inner = getattr(wrapper, "completion_stream", None)
    if inner is None or not hasattr(inner, "__anext__"):
        return None
    from openai import AsyncStream

    return ServerEvents(inner) if isinstance(inner, AsyncStream) else None


class ServerEvents:
    """The chunks of an OpenAI-protocol stream as the dicts its events carry. Failures are
    the openai SDK's errors, as its own reading raises them: an error event, a timeout, a
    lost connection."""

    def __init__(self, sdk_stream: Any) -> None:
        self._sdk_stream = sdk_stream
        self._response = sdk_stream.response
        self._chunks = self._read()

    def __aiter__(self) -> Any:
        return self._chunks

    async def close(self) -> None:
        await self._chunks.aclose()
        await self._sdk_stream.close()

    async def _read(self) -> Any:
        import openai

        events = event_data(self._response.aiter_lines())
        try:
            async for data in events:
                if data.startswith("[DONE]"):
                    await _drain(events)
                    return
                chunk = json.loads(data)
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    raise openai.APIError(message=_error_message(chunk["error"]),
                                          request=self._response.request, body=chunk["error"])
                yield chunk
        except openai.APIError:
            raise
        except ValueError as exc:
            raise openai.APIError(message=f"the server sent an event that is not JSON: {exc}",
                                  request=self._response.request, body=None) from exc
        except Exception as exc:
            kind = openai.APITimeoutError if _is_timeout(exc) else openai.APIConnectionError
            raise kind(request=self._response.request) from exc


async def event_data(lines: Any) -> Any:
    """The data of each server-sent event (its ``data:`` lines joined), in order."""
    data: list[str] = []
    async for line in lines:
        if line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
        elif not line and data:
            yield "\n".join(data)
            data = []
    if data:
        yield "\n".join(data)


async def _drain(events: Any) -> None:
    """Read what follows the end of the answer, briefly: a response read to its end lets
    its connection serve the next request (no new TLS handshake with a hosted provider)."""
    try:
        async with asyncio.timeout(DRAIN_S):
            async for _ in events:
                pass
    except Exception:  # the answer is whole; what follows it cannot fail it
        pass


def _error_message(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) and message else "the server failed mid-answer"


def _is_timeout(exc: BaseException) -> bool:
    """httpx's read timeout, from whichever httpx the openai client was given."""
    return isinstance(exc, TimeoutError) or any(
        kind.__name__ == "TimeoutException" for kind in type(exc).__mro__)


class StreamEnd:
    """How a stream read past LiteLLM ended, judged as LiteLLM judges it: a stream that
    stops before any finish reason was cut; "abort" and "error" are the server's failure."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def see(self, chunk: Any) -> None:
        for choice in field(chunk, "choices") or []:
            reason = field(choice, "finish_reason")
            if reason:
                self.reason = str(reason)

    def finished(self) -> bool:
        """The model sent its finish reason: a connection lost after it loses at most the
        usage, not the answer."""
        return self.reason is not None

    def failure(self) -> str | None:
        """Why the finished stream is not a whole answer, or None."""
        if self.reason is None:
            return "the stream ended before the model finished its answer"
        if self.reason in ("abort", "error"):
            return f"the server ended the answer with finish_reason {self.reason}"
        return None

    def error(self, litellm, provider: str | None, model: str) -> Exception:
        """The failure as the error LiteLLM raises for it: a cut connection (retried), or
        the server's own failure."""
        kind = litellm.APIConnectionError if self.reason is None else litellm.InternalServerError
        return kind(message=self.failure(), llm_provider=provider, model=model)


def mapped_error(litellm, exc: Exception, provider: str | None, model: str) -> Exception:
    """An error read from the provider's stream past LiteLLM, in LiteLLM's types (which the
    adapter classifies), as LiteLLM maps it on the streams it wraps."""
    try:
        mapped = litellm.exception_type(model=model, original_exception=exc,
                                        custom_llm_provider=provider)
    except Exception as raised:
        return raised
    return mapped if isinstance(mapped, Exception) else exc


class RepeatWatch:
    """Ends words that started going round in circles: a small model, out of things to
    say, writes the same sentences again until the token cap (the 1.5B model's answers
    did, up to a minute of it). Watched only where asked (``ModelSettings.stop_repeats``):
    code and data may repeat a line on purpose; an answer in words does not say one
    sentence three times."""

    def __init__(self) -> None:
        self._parts = 0  # of the streamed pieces, how many are counted in _length
        self._length = 0
        self._checked = 0

    def cut(self, parts: list[str]) -> int | None:
        """Where the words streamed so far (``parts``) should end: the start of the second
        saying of the first sentence said three times; None while no sentence has been."""
        self._length += sum(len(part) for part in parts[self._parts:])
        self._parts = len(parts)
        if self._length - self._checked < REPEAT_CHECK_CHARS:
            return None
        self._checked = self._length
        text = "".join(parts)
        seen: dict[str, list[int]] = {}
        starts = [0]  # of the sentences so far
        for stop in _SENTENCE_END.finditer(text):
            sentence = text[starts[-1]:stop.start() + 1]
            if len(sentence) >= REPEAT_MIN_CHARS:
                said = seen.setdefault(sentence, [])
                said.append(starts[-1])
                if len(said) == 3:
                    return _round_start(text, said[0], said[1], starts)
            starts.append(stop.end())
        return None


def _round_start(text: str, first: int, second: int, starts: list[int]) -> int:
    """Where the second round of sentences begins: a round may start before the
    sentence seen thrice (with sentences said only twice so far, or one that the words
    around the answer make unique the first time), so go back while the text matches
    the round before, to the start of a sentence."""
    round_length, begin = second - first, second
    while begin > round_length and text[begin - 1] == text[begin - 1 - round_length]:
        begin -= 1
    return min(start for start in starts if start >= begin)


# How long the rest of a response is read after its end, for its connection's sake.
DRAIN_S = 0.1
# How much new text a RepeatWatch waits for before it reads the words again.
REPEAT_CHECK_CHARS = 80
# A sentence long enough to count: "Done." may well come three times.
REPEAT_MIN_CHARS = 16
# A sentence's stop and the spaces after it (``\n`` too: the words may be a JSON string).
_SENTENCE_END = re.compile(r"[.!?](?:\s|\\n)+")
