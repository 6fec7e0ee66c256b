"""A scripted response as OpenAI chat-completions wire messages: one JSON completion, or the
chunks of an SSE stream with OpenAI-shaped tool-call deltas and a usage chunk."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

@dataclass
class Turn:
    """What one served response says, after ids and usage are resolved."""

    content: str
    calls: list[tuple[str, str, str]]  # (id, name, arguments)
    usage: dict[str, int]
    chunk_size: int = 8
    delay: float = 0.0
    finish_reason: str | None = "stop"
    rate: float = 0.0
    id: str = field(default_factory=lambda: f"chatcmpl-fake-{next(_completion_ids)}")


_completion_ids = itertools.count(1)


def usage_of(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def estimate_prompt_tokens(body: dict[str, Any]) -> int:
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


class Chunks:
    """Builds chat.completion.chunk objects for one turn."""

    def __init__(self, turn: Turn, model: str) -> None:
        self.turn, self.model, self.created = turn, model, int(time.time())

    def _envelope(self) -> dict[str, Any]:
        return {"id": self.turn.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model}

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {**self._envelope(), "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    def usage_chunk(self) -> dict[str, Any]:
        # Sent only on stream_options.include_usage, after the finish chunk, like OpenAI.
        return {**self._envelope(), "choices": [], "usage": self.turn.usage}

    def progress_chunks(self, prompt_tokens: int) -> Iterator[dict[str, Any]]:
        """llama.cpp's prompt-reading progress, as it sends it when asked with
        ``return_progress``: on a role chunk, at the start, halfway and at the end."""
        for processed in (0, prompt_tokens // 2, prompt_tokens):
            yield {**self.chunk({"role": "assistant", "content": None}),
                   "prompt_progress": {"total": prompt_tokens, "cache": 0,
                                       "processed": processed, "time_ms": 0}}

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


def completion_json(turn: Turn, model: str) -> dict[str, Any]:
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
