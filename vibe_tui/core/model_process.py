"""A view's model calls, run in a process of their own (``model_worker.py``).

LiteLLM's per-chunk work, its imports and its memory would otherwise sit on the screen's
event loop: keys wait while a fast answer streams, and one core does everything. With a
``ModelProcess`` in use (``model.use_remote``), ``stream_completion`` sends the request
down a pipe and the screen gets the answer's text a few dozen times a second; the
session, its tools and its events stay where they are. Token counts on this side use
tiktoken's cl100k (what LiteLLM picks for most models; the provider's reported counts
calibrate them either way), the window and prices come with each answer or a ``learn``.

The process starts with the view, answers while LiteLLM still loads (its first request
waits there, not here), and ends when the view closes its stdin. If it dies, a call under
way fails as a retryable error and the next one starts a new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from vibe_tui.core.model import ModelError, ModelResponse, ModelSettings
from vibe_tui.tools.processes import terminate_child

LINE_LIMIT = 1 << 28
STOP_WAIT_S = 3.0


class ModelProcess:
    def __init__(self, stderr_path: Path | None = None) -> None:
        self.stderr_path = stderr_path  # where LiteLLM's own complaints go; None: nowhere
        self.ready = asyncio.Event()  # LiteLLM is loaded in the process
        self._process: asyncio.subprocess.Process | None = None
        self._reading: asyncio.Task[None] | None = None
        self._starting: asyncio.Lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Queue[dict[str, Any]]] = {}
        self._facts: dict[str, dict[str, Any]] = {}
        self._models: dict[tuple[tuple[str, ...], str], list[str]] = {}
        self._encoding = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # -- the process

    async def start(self) -> None:
        async with self._starting:
            if self._process is not None and self._process.returncode is None:
                return
            self.ready.clear()
            stderr = open(self.stderr_path, "ab") if self.stderr_path else None  # noqa: SIM115
            try:
                self._process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "vibe_tui.core.model_worker",
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=stderr if stderr is not None else asyncio.subprocess.DEVNULL,
                    limit=LINE_LIMIT, start_new_session=True)
            finally:
                if stderr is not None:
                    stderr.close()
            self._reading = asyncio.create_task(self._read(self._process))

    async def close(self) -> None:
        """Close its stdin (it ends by itself); if it has not after a while, end its group."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), STOP_WAIT_S)
        await terminate_child(process, STOP_WAIT_S)
        if self._reading is not None:
            await self._reading

    async def wait_ready(self, limit_s: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ready.wait(), limit_s)

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if message.get("ready"):
                self.ready.set()
                continue
            queue = self._waiting.get(message.get("id"))
            if queue is not None:
                queue.put_nowait(message)
        code = await process.wait()
        for queue in self._waiting.values():
            queue.put_nowait({"ended": code})

    async def _ask(self, request: dict[str, Any]) -> tuple[int, asyncio.Queue[dict[str, Any]]]:
        """Send ``request``: its id, and the queue its answers arrive in."""
        await self.start()
        request_id = request["id"] = next(self._ids)
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._waiting[request_id] = queue
        self._send(request)
        return request_id, queue

    def _send(self, request: dict[str, Any]) -> None:
        process = self._process
        if process is None or process.stdin is None or process.stdin.is_closing():
            return
        process.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")

    # -- the calls

    async def stream(self, settings: ModelSettings, messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]], on_text: Callable[[str], None],
                     on_progress: Callable[[int, int], None] | None = None) -> ModelResponse:
        request_id, queue = await self._ask({"op": "stream", "settings": asdict(settings),
                                             "messages": messages, "tools": tools,
                                             "progress": on_progress is not None})
        streamed: list[str] = []
        try:
            while True:
                message = await queue.get()
                if "text" in message:
                    streamed.append(message["text"])
                    on_text(message["text"])
                elif "progress" in message and on_progress is not None:
                    on_progress(*message["progress"])
                elif "response" in message:
                    self._facts[settings.model] = message.get("facts") or {}
                    return ModelResponse(**message["response"])
                elif "error" in message:
                    raise _model_error(message["error"])
                elif "ended" in message:
                    raise _ended(message["ended"], "".join(streamed))
        except asyncio.CancelledError:
            self._send({"op": "cancel", "id": request_id})
            raise
        finally:
            self._waiting.pop(request_id, None)

    async def _one_answer(self, request: dict[str, Any]) -> dict[str, Any]:
        request_id, queue = await self._ask(request)
        try:
            message = await queue.get()
        finally:
            self._waiting.pop(request_id, None)
        if "ended" in message:
            raise _ended(message["ended"], "")
        if "error" in message:
            raise _model_error(message["error"])
        return message

    async def learn(self, model: str | None) -> None:
        """Ask the process for ``model``'s window and prices, once."""
        if model is None or model in self._facts:
            return
        try:
            answer = await self._one_answer({"op": "facts", "model": model})
        except ModelError:
            return  # unknown stays unknown: the default window, no price
        self._facts[model] = answer.get("facts") or {}

    def known_facts(self, model: str) -> dict[str, Any]:
        return self._facts.get(model, {})

    async def provider_models(self, providers: tuple[str, ...], prefix: str) -> list[str]:
        key = (tuple(providers), prefix)
        if key not in self._models:
            answer = await self._one_answer({"op": "models", "providers": list(providers),
                                             "prefix": prefix})
            self._models[key] = list(answer.get("models") or [])
        return list(self._models[key])

    def known_models(self, providers: tuple[str, ...], prefix: str) -> list[str]:
        return list(self._models.get((tuple(providers), prefix), []))

    def count_tokens(self, text: str) -> int:
        if self._encoding is None:
            self._encoding = _cl100k()
        return len(self._encoding.encode(text, disallowed_special=()))


def _model_error(error: dict[str, Any]) -> ModelError:
    partial = error.get("partial")
    failure = ModelError(error.get("kind") or "other", error.get("message") or "model error",
                         retry_after=error.get("retry_after"), summary=error.get("summary"),
                         partial=ModelResponse(**partial) if partial else None)
    if error.get("cause"):  # the settings screen's Test shows the reason beneath LiteLLM's
        failure.__cause__ = RuntimeError(error["cause"])
    return failure


def _ended(code: int | None, streamed: str) -> ModelError:
    message = f"the model process ended (exit code {code}); the next request starts it again"
    if streamed:
        return ModelError("stream_cut", message, partial=ModelResponse(text=streamed))
    return ModelError("server", message)


def _cl100k():
    """tiktoken's cl100k from the copy LiteLLM ships (tiktoken would otherwise download
    it), found without importing LiteLLM."""
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers"
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base")
    # tiktoken keeps the ranks it built its Rust tokenizer from as a Python dict of 100,000
    # byte strings (16 MiB of the screen's memory) only to pickle the encoding, which we
    # never do: counting, encoding and decoding all run in the Rust object.
    if isinstance(getattr(encoding, "_mergeable_ranks", None), dict):
        encoding._mergeable_ranks = {}
    return encoding
