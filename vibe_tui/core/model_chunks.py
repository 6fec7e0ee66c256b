"""What the chunks of a streamed answer carry: text, tool-call fragments (assembled here),
usage, and llama.cpp's prompt-processing progress; and which stream they are read from."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from typing import Any


class ToolCallAssembler:
    """Tool calls arrive as fragments keyed by index; the first carries id and name."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}

    @property
    def started(self) -> bool:
        return bool(self._calls)

    def add(self, delta: Any) -> None:
        index = getattr(delta, "index", None)
        if index is None:
            index = len(self._calls)
        call = self._calls.setdefault(
            index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if getattr(delta, "id", None):
            call["id"] = delta.id
        function = getattr(delta, "function", None)
        if function is not None:
            if getattr(function, "name", None):
                call["function"]["name"] = function.name
            if getattr(function, "arguments", None):
                call["function"]["arguments"] += function.arguments

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
    progress = getattr(chunk, "prompt_progress", None)
    if progress is None:
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
    usage = getattr(chunk, "usage", None)
    if usage:
        response.prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
        response.completion_tokens = getattr(usage, "completion_tokens", 0) or 0
        response.cached_tokens = cached_tokens(usage)
    for choice in getattr(chunk, "choices", None) or []:
        delta = getattr(choice, "delta", None)
        if delta is not None:
            content = getattr(delta, "content", None)
            if content:
                text_parts.append(content)
                on_text(content)
            for call_delta in getattr(delta, "tool_calls", None) or []:
                assembler.add(call_delta)
        if getattr(choice, "finish_reason", None):
            response.finish_reason = choice.finish_reason


def cached_tokens(usage: Any) -> int:
    """Prompt tokens read from the provider's cache: OpenAI reports them in
    ``prompt_tokens_details``, Anthropic (through LiteLLM) as ``cache_read_input_tokens``."""
    details = getattr(usage, "prompt_tokens_details", None)
    value = getattr(details, "cached_tokens", None) if details is not None else None
    if not value:
        value = getattr(usage, "cache_read_input_tokens", None)
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


def openai_stream(wrapper: Any) -> Any | None:
    """The openai SDK's stream under LiteLLM's, where LiteLLM reached the provider through
    that SDK (OpenAI and the servers that speak its protocol); None otherwise. Its chunks
    already carry what ``absorb_chunk`` reads, so reading them skips what LiteLLM adds to
    each one (a response object of its own, copied and checked) and its rebuild of the
    whole answer at the end: work for its logging and pricing, which we do not use, since
    the answer is assembled here."""
    inner = getattr(wrapper, "completion_stream", None)
    if inner is None or not hasattr(inner, "__anext__"):
        return None
    from openai import AsyncStream

    return inner if isinstance(inner, AsyncStream) else None


class StreamEnd:
    """How a stream read past LiteLLM ended, judged as LiteLLM judges it: a stream that
    stops before any finish reason was cut; "abort" and "error" are the server's failure."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def see(self, chunk: Any) -> None:
        for choice in getattr(chunk, "choices", None) or []:
            reason = getattr(choice, "finish_reason", None)
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


# How much new text a RepeatWatch waits for before it reads the words again.
REPEAT_CHECK_CHARS = 80
# A sentence long enough to count: "Done." may well come three times.
REPEAT_MIN_CHARS = 16
# A sentence's stop and the spaces after it (``\n`` too: the words may be a JSON string).
_SENTENCE_END = re.compile(r"[.!?](?:\s|\\n)+")
