"""What the chunks of a streamed answer carry: text, tool-call fragments (assembled here),
usage, and llama.cpp's prompt-processing progress."""

from __future__ import annotations

import secrets
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


class SteadyIterator:
    """A provider stream iterated through one ``__anext__``. LiteLLM's wrapper writes
    ``async for chunk in stream: ... return chunk`` for every chunk; on the openai SDK's
    stream each ``async for`` starts a new async generator that is left unfinished, and
    asyncio finalizes each one through a thread-safe wake-up of the loop and a task of
    its own: three extra loop callbacks per chunk."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __aiter__(self) -> SteadyIterator:
        return self

    async def __anext__(self) -> Any:
        return await self._stream.__anext__()

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None) or getattr(self._stream, "close", None)
        if close is not None:
            result = close()
            if hasattr(result, "__await__"):
                await result


def steady(wrapper: Any) -> Any:
    """``wrapper`` (LiteLLM's stream) reading its provider stream through a SteadyIterator
    where that stream has its own ``__anext__``; unchanged otherwise."""
    inner = getattr(wrapper, "completion_stream", None)
    if hasattr(inner, "__anext__") and not isinstance(inner, SteadyIterator):
        wrapper.completion_stream = SteadyIterator(inner)
    return wrapper
