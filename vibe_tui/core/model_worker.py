"""The model process: LiteLLM and its streams, out of the screen's event loop.

``python -m vibe_tui.core.model_worker`` reads one JSON request a line on stdin and
answers with JSON lines on stdout (``model_process.py`` is the other end):

- ``{"id", "op": "stream", "settings", "messages", "tools"}``: a streamed completion;
  answered by ``{"id", "text"}`` pieces (the deltas of up to ``FLUSH_S`` in one line, the
  first at once: the screen wakes a few dozen times a second, not once a token), ``{"id", "progress":
  [done, total]}``, and one ``{"id", "response", "facts"}`` or ``{"id", "error"}``;
- ``{"id", "op": "cancel"}``: stop that stream (its HTTP request is closed);
- ``{"id", "op": "facts", "model"}``: ``{"id", "facts": {"window", "prices"}}``;
- ``{"id", "op": "models", "providers", "prefix"}``: ``{"id", "models": [...]}``.

It says ``{"ready": true}`` once LiteLLM and its first call's imports are loaded, and ends
when stdin closes (the screen quit or died). Anything LiteLLM prints goes to stderr: stdout
carries only this protocol.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
from dataclasses import asdict
from typing import Any, BinaryIO

from vibe_tui.core import model as model_adapter
from vibe_tui.core import model_listing
from vibe_tui.core.deltas import DeltaThrottle
from vibe_tui.core.model_errors import root_cause
from vibe_tui.core.model import ModelError, ModelSettings

FLUSH_S = 0.02  # text deltas closer than this travel together
LINE_LIMIT = 1 << 28  # a request holds the whole conversation


class Replies:
    """Writes answer lines to the protocol's pipe, whole lines at a time."""

    def __init__(self, pipe: BinaryIO) -> None:
        self._pipe = pipe

    def send(self, message: dict[str, Any]) -> None:
        self._pipe.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self._pipe.flush()


def model_facts(model: str) -> dict[str, Any]:
    """What the screen's sync lookups need of a model: its window and its prices."""
    return {"window": model_adapter.max_input_tokens(model),
            "prices": model_adapter.model_prices(model)}


def error_reply(exc: ModelError) -> dict[str, Any]:
    return {"kind": exc.kind, "message": exc.message, "retry_after": exc.retry_after,
            "summary": exc.summary, "cause": str(root_cause(exc)).strip()[:300] or None,
            "partial": asdict(exc.partial) if exc.partial is not None else None}


async def stream(request: dict[str, Any], replies: Replies) -> None:
    request_id = request["id"]
    batch = DeltaThrottle(lambda text: replies.send({"id": request_id, "text": text}), FLUSH_S)
    settings = ModelSettings(**request["settings"])

    def progress(done: int, total: int) -> None:
        replies.send({"id": request_id, "progress": [done, total]})

    try:
        response = await model_adapter.stream_completion(
            settings, request["messages"], request["tools"], batch.add,
            progress if request.get("progress") else None)
    except ModelError as exc:
        batch.flush()
        replies.send({"id": request_id, "error": error_reply(exc)})
        return
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug of ours: the screen still gets an answer
        batch.flush()
        replies.send({"id": request_id,
                      "error": {"kind": "other", "message": f"{type(exc).__name__}: {exc}"}})
        return
    batch.flush()
    replies.send({"id": request_id, "response": asdict(response),
                  "facts": await asyncio.to_thread(model_facts, settings.model)})


async def answer(request: dict[str, Any], replies: Replies) -> None:
    """The short requests: facts and model lists (LiteLLM's lookups, off this loop too)."""
    request_id = request["id"]
    await model_adapter.loaded_litellm()
    try:
        if request["op"] == "facts":
            facts = await asyncio.to_thread(model_facts, request["model"])
            replies.send({"id": request_id, "facts": facts})
        else:
            models = await asyncio.to_thread(model_listing.provider_models,
                                             tuple(request["providers"]), request["prefix"])
            replies.send({"id": request_id, "models": models})
    except Exception as exc:
        replies.send({"id": request_id, "error": {"kind": "other", "message": str(exc)}})


async def warm_up(replies: Replies) -> None:
    await model_adapter.preload(tokenizer=False)  # the screen counts tokens itself
    # LiteLLM leaves many long-lived objects: frozen, a full collection does not scan them.
    gc.freeze()
    replies.send({"ready": True})


async def serve(replies: Replies) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    running: dict[int, asyncio.Task[None]] = {}
    warming = asyncio.create_task(warm_up(replies))
    while line := await reader.readline():
        request = json.loads(line)
        request_id = request.get("id")
        if request.get("op") == "cancel":
            task = running.pop(request_id, None)
            if task is not None:
                task.cancel()
            continue
        work = stream(request, replies) if request.get("op") == "stream" \
            else answer(request, replies)
        task = running[request_id] = asyncio.create_task(work)
        task.add_done_callback(lambda _t, key=request_id: running.pop(key, None))
    for task in [warming, *running.values()]:
        task.cancel()


def main() -> None:
    # The protocol keeps the real stdout; whatever else writes to fd 1 lands on stderr.
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(serve(Replies(protocol)))


if __name__ == "__main__":
    main()
