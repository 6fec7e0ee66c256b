"""The model adapter: the only module that imports LiteLLM.

It streams one completion, hands text deltas to a callback as they arrive, assembles
tool-call deltas, and turns provider failures into ``ModelError`` with a kind the loop
can act on (retry, or end the turn with a clear message).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from vibe_tui.core import model_errors
from vibe_tui.core.model_chunks import Reading, mapped_error, openai_stream

log = logging.getLogger(__name__)
# The longest a stream's chunks keep the event loop before the keys get a turn.
LOOP_SHARE_S = 0.02
_litellm = None
_import_lock = threading.Lock()
# A view started loading LiteLLM (``preload``): until that is done, a message waits for it
# and says so. Without a preload (``-p``) the first call simply imports it.
_preload_started = False
_preload_done = threading.Event()
# The model process (``model_process.py``) a view runs the calls in, out of its own loop:
# while it is set, the calls and lookups below are answered by it, and this process never
# imports LiteLLM.
_remote = None


def use_remote(remote) -> None:
    global _remote
    _remote = remote


def litellm_module():
    """Import LiteLLM once, quietly and without network: it costs seconds, so views call
    ``preload()`` in the background after their first frame."""
    global _litellm
    if _litellm is None:
        with _import_lock:
            if _litellm is None:
                # Without this LiteLLM fetches its price list from the network at import.
                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                import litellm

                litellm.suppress_debug_info = True
                litellm.drop_params = True
                # We register no LiteLLM callbacks (the session keeps its own record), so its
                # per-stream success logging is pure cost: milliseconds of GIL per call.
                litellm.disable_streaming_logging = True
                # Token counting must never download a tokenizer (llama names would fetch
                # one from the Hugging Face hub); tiktoken, recalibrated from the usage each
                # response reports, is close enough.
                litellm.disable_hf_tokenizer_download = True
                # LiteLLM prices every call itself (a tokenizer loaded just for that: 40
                # MiB, and CPU per call); the loop prices calls from the reported usage.
                litellm.response_cost_calculator = _no_cost
                _litellm = litellm
    return _litellm


def _no_cost(*_args: Any, **_kwargs: Any) -> None:
    return None


def preload(tokenizer: bool = True) -> Coroutine[Any, Any, None]:
    """LiteLLM, and what it imports only at its first call (~65 more modules: 0.6 s of CPU
    that would otherwise land on the views' loop in the middle of the first answer), and
    the tokenizer unless this process counts no tokens (the model process).
    From the call on, before the returned coroutine runs, ``client_loading()`` is true."""
    global _preload_started
    _preload_started = True
    return _preload(tokenizer)


async def _preload(tokenizer: bool) -> None:
    try:
        litellm = await asyncio.to_thread(litellm_module)
        await asyncio.to_thread(_warm_first_call, litellm, tokenizer)
    finally:
        _preload_done.set()


def _warm_first_call(litellm, tokenizer: bool = True) -> None:
    try:  # the tokenizer every model is counted with (no Hugging Face ones: see above)
        if tokenizer:
            litellm.encode(text="warm-up")
    except Exception:
        log.debug("tokenizer warm-up failed", exc_info=True)

    async def one_mock_call() -> None:
        # Streamed, the mock's usage is counted at its end with the tokenizer (40 MiB): a
        # process that counts no tokens warms with a whole answer, most of the same imports.
        response = await litellm.acompletion(
            model="openai/warm-up", api_key="sk-warm-up", stream=tokenizer,
            mock_response="ok", messages=[{"role": "user", "content": "hi"}],
            stream_options={"include_usage": True} if tokenizer else None)
        if tokenizer:
            async for _ in response:
                pass

    try:
        asyncio.run(one_mock_call())  # a loop of its own: this runs in a worker thread
    except Exception:  # only a warm-up: the real call reports its own errors
        log.debug("LiteLLM warm-up failed", exc_info=True)


async def loaded_litellm():
    """LiteLLM, imported off the event loop the first time; a plain lookup afterwards."""
    return _litellm if _litellm is not None else await asyncio.to_thread(litellm_module)


def litellm_loaded() -> bool:
    return _litellm is not None


def remote():
    """The model process answering this view's calls, or None."""
    return _remote


async def lookups_ready(model: str | None = None) -> None:
    """What the sync lookups (window, prices, model lists) need: LiteLLM here, or the model
    process's facts about ``model``."""
    if _remote is not None:
        await _remote.learn(model)
    else:
        await loaded_litellm()


def count_tokens(model: str, text: str) -> int:
    """Tokens of ``text`` by the model's tokenizer (LiteLLM's choice; tiktoken's
    cl100k in a view whose calls run in the model process)."""
    if _remote is not None:
        return _remote.count_tokens(text)
    return len(litellm_module().encode(model=model, text=text))


def client_loading() -> bool:
    """A view's preload of LiteLLM is still under way: a model call now waits for it."""
    if _remote is not None:
        return not _remote.ready.is_set()
    return _preload_started and not _preload_done.is_set()


async def client_ready(limit_s: float = 60.0) -> None:
    """Wait, off the loop, for a preload under way (the import, the tokenizer and the first
    call's imports): a call started meanwhile would do the same work again on the loop,
    where it stalls the screen. Waits in short slices, so an interrupted wait leaves no
    thread behind; after ``limit_s`` the call goes on and imports what it needs itself."""
    if _remote is not None:
        await _remote.wait_ready(limit_s)
        return
    deadline = time.monotonic() + limit_s
    while client_loading() and time.monotonic() < deadline:
        await asyncio.to_thread(_preload_done.wait, 0.25)


@dataclass
class ModelSettings:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    temperature: float | None = None
    max_tokens: int | None = None  # cap on the answer (summaries); None: the provider's
    # Small local models write calls as JSON in their text: read those as real calls.
    text_tool_calls: bool = False
    tool_choice: str | None = None  # "none": the tools stay listed but the answer is words
    # A JSON schema the answer must follow (llama.cpp enforces it with a grammar).
    response_format: dict[str, Any] | None = None
    # Ask for llama.cpp's prompt-processing progress (other servers may refuse the field).
    prompt_progress: bool = False
    # Words only: end the answer where it starts saying its sentences again (finish_reason
    # "repeated", the text up to there).
    stop_repeats: bool = False


@dataclass
class ModelResponse:
    text: str = ""
    # OpenAI-shaped calls: {"id", "type": "function", "function": {"name", "arguments"}}
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens the provider served from its cache
    first_token_s: float | None = None  # from the request to the first text or call delta
    dropped_calls: int = 0  # calls made when words were asked for (tool_choice none)
    notes: list[str] = field(default_factory=list)  # calls written as text and not run: why
    # The words of ``text`` without calls written in it and not run; None: all of ``text``.
    words: str | None = None


class ModelError(Exception):
    """kind: rate_limit | server | timeout | connection | refused (nothing listens: no
    retry) | auth | not_found | context | bad_request | stream_cut | other. ``partial``
    holds what streamed before a cut."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        retry_after: float | None = None,
        partial: ModelResponse | None = None,
        summary: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message  # the provider's own words (the settings screen's Test)
        # What a turn that failed says instead, when it can say more in fewer words.
        self.summary = summary
        self.retry_after = retry_after
        self.partial = partial

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "server", "timeout", "connection")


async def stream_completion(
    settings: ModelSettings,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    on_text: Callable[[str], None],
    on_progress: Callable[[int, int], None] | None = None,
) -> ModelResponse:
    """One streamed model call. Raises ModelError; never retries by itself.
    ``on_progress(done, total)``: prompt tokens read so far, where the server says."""
    if _remote is not None:
        return await _remote.stream(settings, messages, tools, on_text, on_progress)
    litellm = await loaded_litellm()
    response = ModelResponse()
    reading = Reading(response, on_text, on_progress, settings.stop_repeats)
    provider_stream = None
    try:
        wrapper = await litellm.acompletion(**_request(settings, messages, tools))
        provider_stream = openai_stream(wrapper)
        try:
            held_since = time.perf_counter()
            async for chunk in provider_stream or wrapper:
                if time.perf_counter() - held_since > LOOP_SHARE_S:
                    # Chunks already read come out of the stream without a pause, so a fast
                    # answer would hold the event loop (and the keys) until it ran dry.
                    await asyncio.sleep(0)
                    held_since = time.perf_counter()
                if not reading.take(chunk):
                    break
        except Exception:
            if provider_stream is None or not reading.end.finished():
                raise
        finally:  # its HTTP response stays open when left early (repeats, a cancel)
            await (wrapper.aclose() if provider_stream is None else provider_stream.close())
        if provider_stream is not None and reading.end.failure():
            raise reading.end.error(litellm, wrapper.custom_llm_provider, settings.model)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # every provider failure becomes a ModelError
        if provider_stream is not None:
            exc = mapped_error(litellm, exc, wrapper.custom_llm_provider, settings.model)
        response.text = reading.text
        raise classify_error(exc, litellm, response, settings) from exc
    response.text = reading.text
    response.tool_calls = reading.assembler.calls()
    written = response.text
    if tools and not response.tool_calls and response.text:
        _calls_from_text(response, tools, run=settings.text_tool_calls)
    if settings.tool_choice == "none" and response.tool_calls:
        # Asked for words, the model (or a server that ignores tool_choice) called tools
        # anyway: those calls are not run, and what text there was is the answer (all of
        # it: a call written as text is words too, never an empty answer).
        response.dropped_calls = len(response.tool_calls)
        response.tool_calls = []
        if response.text != written:
            response.words, response.text = response.text, written
            response.notes.append("the model wrote a tool call as text when asked to answer "
                                  "in words; not run")
        response.finish_reason = "stop"
    return response


def _calls_from_text(response: ModelResponse, tools: list[dict[str, Any]], run: bool) -> None:
    """The fallback for calls a small model wrote as JSON in its answer (``run``: where it
    applies, the local model). The text already streamed to the view as it came; the
    history keeps only what is left of it. A call not run stays text, with a note why."""
    from vibe_tui.core.text_tool_calls import read_text_calls

    names = {tool.get("function", {}).get("name") for tool in tools} - {None}
    read = read_text_calls(response.text, names)
    if read.unknown:
        response.notes.append(f"the model wrote a call to {', '.join(read.unknown)} as text; "
                              "not run: no tool has that name")
    if read.calls and not run:
        written = ", ".join(dict.fromkeys(c["function"]["name"] for c in read.calls))
        response.notes.append(f"the model wrote a call to {written} as text instead of "
                              "calling it; not run: only the local model's are read from text")
    elif read.calls:
        response.text, response.tool_calls = read.kept, read.calls
        response.finish_reason = "tool_calls"


def _request(
    settings: ModelSettings, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": settings.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "timeout": settings.timeout_s,
        # The loop retries with Retry-After honoured; LiteLLM must not retry underneath it.
        "num_retries": 0,
        "max_retries": 0,
    }
    if tools:
        request["tools"] = tools
        if settings.tool_choice:
            request["tool_choice"] = settings.tool_choice
    if settings.api_base:
        request["api_base"] = settings.api_base
    api_key = settings.api_key
    if api_key is None and settings.api_base and _needs_placeholder_key(settings.model):
        # OpenAI-compatible local servers take any key, but the client insists on one.
        api_key = "sk-no-key"
    if api_key:
        request["api_key"] = api_key
    if settings.temperature is not None:
        request["temperature"] = settings.temperature
    if settings.max_tokens is not None:
        request["max_tokens"] = settings.max_tokens
    if settings.response_format is not None:
        request["response_format"] = settings.response_format
    if settings.prompt_progress:
        request["extra_body"] = {"return_progress": True}
    return request


def _needs_placeholder_key(model: str) -> bool:
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    env_name = {"openai": "OPENAI_API_KEY", "hosted_vllm": "", "ollama": ""}.get(provider)
    return env_name is not None and (env_name == "" or not os.environ.get(env_name))


def classify_error(exc: Exception, litellm, partial: ModelResponse,
                   settings: ModelSettings) -> ModelError:
    """Map a LiteLLM/provider exception to what the loop does with it; the two failures a
    first run meets most (no server, no key) get words of their own."""
    message = model_errors.short_message(exc)
    retry_after = model_errors.retry_after_seconds(exc)
    if partial.text:
        return ModelError("stream_cut", f"the connection to the model broke mid-answer: {message}",
                          partial=partial)
    if (model_errors.key_missing(settings.model, settings.api_base, settings.api_key)
            and model_errors.about_keys(exc, litellm)):
        # Whatever LiteLLM called it (OpenAI's client says "Missing credentials" as a
        # server error), the call failed before it was sent, for want of a key.
        return ModelError("auth", message,
                          summary=model_errors.no_key(settings.model, settings.api_base))
    checks: list[tuple[type | tuple[type, ...], str]] = [
        (litellm.ContextWindowExceededError, "context"),
        (litellm.AuthenticationError, "auth"),
        (litellm.PermissionDeniedError, "auth"),
        (litellm.NotFoundError, "not_found"),
        (litellm.RateLimitError, "rate_limit"),
        (litellm.Timeout, "timeout"),
        ((litellm.InternalServerError, litellm.ServiceUnavailableError), "server"),
        (litellm.APIConnectionError, "connection"),
        (litellm.BadRequestError, "bad_request"),
    ]
    for types, kind in checks:
        if isinstance(exc, types):
            summary = None
            if kind == "auth":
                summary = model_errors.key_refused(settings.model, message)
            elif kind in ("server", "connection"):
                kind = model_errors.connection_failure(exc) or kind
                if kind != "server":
                    summary = model_errors.cannot_reach(settings.model, settings.api_base,
                                                        message, kind == "refused")
            return ModelError(kind, message, retry_after=retry_after, summary=summary)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and (status >= 500 or status == 429):
        return ModelError("server" if status >= 500 else "rate_limit", message,
                          retry_after=retry_after)
    return ModelError("other", message)


def model_prices(model: str) -> tuple[float, float] | None:
    """(input, output) price per token, or None when LiteLLM has none (local models)."""
    if _remote is not None:
        return _remote.known_facts(model).get("prices")
    return _prices(model)


@functools.cache
def _prices(model: str) -> tuple[float, float] | None:
    """Looked up once per model: LiteLLM's lookup costs about a millisecond, and raises
    for models it has no price for."""
    try:
        info = litellm_module().get_model_info(model)
    except Exception:
        return None
    prompt_price = info.get("input_cost_per_token")
    completion_price = info.get("output_cost_per_token")
    if prompt_price is None or completion_price is None:
        return None
    return float(prompt_price), float(completion_price)


def max_input_tokens(model: str) -> int | None:
    """The model's context window as LiteLLM knows it, or None (local and unknown models)."""
    if _remote is not None:
        return _remote.known_facts(model).get("window")
    return _max_input_tokens(model)


@functools.cache
def _max_input_tokens(model: str) -> int | None:
    try:
        info = litellm_module().get_model_info(model)
    except Exception:
        return None
    value = info.get("max_input_tokens") or info.get("max_tokens")
    return int(value) if isinstance(value, (int, float)) and value > 0 else None


def response_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Price of one call, or None when LiteLLM does not know the model's price."""
    prices = model_prices(model)
    if prices is None:
        return None
    return prompt_tokens * prices[0] + completion_tokens * prices[1]


def describe_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a call's JSON arguments: (args, None) or (None, what is wrong)."""
    if raw is None or raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON in the arguments ({exc.msg} at column {exc.colno})"
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, got {type(value).__name__}"
    return value, None
