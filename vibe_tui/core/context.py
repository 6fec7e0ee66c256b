"""The context window: how full the conversation is, and freeing room before it overflows.

Counting: LiteLLM's tokenizer for the model (``litellm.encode``: the tokenizer that
``token_counter`` picks, without its 150 µs of overhead per call; tiktoken for most
models; tiktoken's cl100k itself when the calls run in the model process,
``model_process.py``), cached per message object and per text. The provider's count is
the truth; ours only has to move with it. An estimate is the prompt tokens the last response reported,
plus the change since that request, scaled by how the provider's count moved against ours
between two requests (providers count tool schemas and message framing their own way, so
one overall ratio would misjudge a single text). Texts too big to count in a blink, and
the first count of a model (its tokenizer loads), run in a thread.

A compaction reports its before and after in the provider's tokens, as the gauge shows
them: each request since the history was last rewritten is a point (messages it held,
prompt tokens reported; its answer adds the completion tokens), so a part of the
conversation the compaction removes costs what the provider counted for it
(``reported_prefixes``), not what our tokenizer thinks.

Freeing room when it fills up is ``compaction.py``; this module only counts, and caps a
single tool result (``capped_output``).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from vibe_tui.config.settings import Config
from vibe_tui.core.history import Message
from vibe_tui.core.model import count_tokens, lookups_ready, max_input_tokens

DEFAULT_WINDOW = 8192
OUTPUT_SHARE = 0.2  # one tool result may fill at most this much of the window
TARGET_SHARE = 0.75  # of the threshold: where a compaction aims, so it is not needed again soon
SUMMARY_SHARE = 0.1  # room left for the summary itself
MAX_SUMMARY_TOKENS = 1024
THREAD_CHARS = 16_000  # texts longer than this are counted off the event loop
MESSAGE_OVERHEAD = 4  # role and separators, per message
CALL_OVERHEAD = 8  # id, type and braces, per tool call
MEMO_LIMIT = 4096
MIN_CALIBRATION_TOKENS = 100  # smaller changes between requests say little about the ratio


@dataclass(frozen=True)
class Window:
    tokens: int
    source: str  # config | model info | default
    note: str | None = None


def context_window(config: Config, model: str) -> Window:
    """The window for ``model``: its ``[models."name"]`` entry, then ``context_window``,
    then what LiteLLM knows, then a conservative default (said so in ``note``)."""
    per_model = (config.models.get(model) or {}).get("context_window")
    if per_model:
        return Window(int(per_model), "config")
    if config.context_window:
        return Window(int(config.context_window), "config")
    known = max_input_tokens(model)
    if known:
        return Window(known, "model info")
    note = (f"the context window of {model} is unknown: assuming {DEFAULT_WINDOW:,} tokens. "
            f'Set context_window under [models."{model}"] in config.toml to use more.')
    return Window(DEFAULT_WINDOW, "default", note)


@dataclass(frozen=True)
class Budget:
    """The token marks of one window, in provider tokens."""

    window: int
    compact_at: float

    @property
    def threshold(self) -> int:
        return int(self.window * self.compact_at)

    @property
    def target(self) -> int:
        return int(self.threshold * TARGET_SHARE)

    @property
    def output_cap(self) -> int:
        return int(self.window * OUTPUT_SHARE)

    @property
    def summary_tokens(self) -> int:
        return min(MAX_SUMMARY_TOKENS, int(self.window * SUMMARY_SHARE))


# ---- counting ---------------------------------------------------------------------------


class TokenCounter:
    """Token counts of one model's tokenizer, memoised per text."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.warm = False  # the first count loads the tokenizer: slow, so it goes to a thread
        self._memo: dict[str, int] = {}

    def text(self, text: str) -> int:
        if not text:
            return 0
        count = self._memo.get(text)
        if count is None:
            try:
                count = count_tokens(self.model, text)
            except Exception:  # an odd model name must not stop the conversation
                count = len(text) // 4 + 1
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            self._memo[text] = count
            self.warm = True
        return count

    def message(self, message: Message) -> int:
        """One tokenizer call per message: the call itself costs more than short texts."""
        content = message.get("content")
        parts = [content if isinstance(content, str) else json.dumps(content) if content else ""]
        calls = message.get("tool_calls") or ()
        for call in calls:
            function = call.get("function", {})
            parts += [function.get("name", ""), function.get("arguments", "")]
        text = parts[0] if len(parts) == 1 else "\n".join(parts)
        return MESSAGE_OVERHEAD + CALL_OVERHEAD * len(calls) + self.text(text)


def _size(message: Message) -> int:
    content = message.get("content")
    size = len(content) if isinstance(content, str) else 0
    for call in message.get("tool_calls") or ():
        size += len(call.get("function", {}).get("arguments", ""))
    return size


class ContextTracker:
    """Token use of one conversation (the main agent's, or a sub-agent's).

    Raw counts are ours; ``estimate`` scales them by how the provider counted the last
    request. Counts are kept per message object: the history only ever appends messages or
    replaces them by new ones, so an object's count never goes stale."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.ratio = 1.0  # provider tokens per counted token, for changes in the request
        self.calibrated = False
        self.anchor: tuple[int, int] | None = None  # (our count, provider's) of a request
        self._counter: TokenCounter | None = None
        self._counts: dict[int, tuple[Message, int]] = {}
        self._windows: dict[str, Window] = {}
        self._fixed_key: tuple[str, int] | None = None
        self._fixed = 0
        self._prefix: tuple[int, int, int, int] | None = None  # list, length, last, total
        # (messages, provider tokens of the system prompt, tools and those messages) of
        # each request since the history was last rewritten, fewest messages first.
        self._reported: list[tuple[int, int]] = []
        self._measured_length = 0  # messages in the request last measured

    # -- the window

    def forget_windows(self) -> None:
        """The settings changed (a window override, another endpoint): look again."""
        self._windows.clear()

    async def window(self, model: str) -> Window:
        window = self._windows.get(model)
        if window is None:
            await lookups_ready(model)
            window = self._windows[model] = context_window(self.config, model)
        return window

    def budget(self, window: Window) -> Budget:
        return Budget(window.tokens, self.config.compact_at)

    # -- counting

    def counter(self, model: str) -> TokenCounter:
        if self._counter is None or self._counter.model != model:
            # Another model counts differently and its provider reports differently.
            self._counter = TokenCounter(model)
            self._counts.clear()
            self._fixed_key = self._prefix = None
            self.ratio, self.calibrated, self.anchor = 1.0, False, None
            self._reported = []
        return self._counter

    async def measure(self, model: str, system: str, tools: list[dict[str, Any]],
                      messages: list[Message]) -> int:
        """Raw tokens of a request: system prompt, tool schemas and messages."""
        counter = self.counter(model)
        start, total = self._grown_from(messages)
        known = self._counts.get
        pending = []
        for message in messages[start:]:
            entry = known(id(message))
            if entry is None:
                pending.append(message)
            else:
                total += entry[1]
        fixed_key = (system, len(tools))
        if fixed_key != self._fixed_key:
            pending_fixed = [system, json.dumps(tools)]
        else:
            pending_fixed = []
        chars = sum(_size(m) for m in pending) + sum(len(t) for t in pending_fixed)
        if not counter.warm or chars > THREAD_CHARS:
            await asyncio.to_thread(self._count, counter, pending, pending_fixed)
        else:
            self._count(counter, pending, pending_fixed)
        if pending_fixed:
            self._fixed_key = fixed_key
        self._forget_dropped(messages)
        total += sum(self._counts[id(m)][1] for m in pending)
        self._prefix = (id(messages), len(messages), id(messages[-1]) if messages else 0, total)
        self._measured_length = len(messages)
        return self._fixed + total

    def _grown_from(self, messages: list[Message]) -> tuple[int, int]:
        """Where counting must start, and the total before it. Between compactions the
        history only grows, so only what was appended since the last measure is summed
        (this runs before every model call; long sessions have thousands of messages)."""
        if self._prefix is None:
            return 0, 0
        list_id, length, last_id, total = self._prefix
        if (list_id == id(messages) and 0 < length <= len(messages)
                and id(messages[length - 1]) == last_id):
            return length, total
        return 0, 0

    def forget_prefix(self) -> None:
        """The history was rewritten in place (a compaction): count it whole next time."""
        self._prefix = None
        self._reported = []

    def _count(self, counter: TokenCounter, messages: list[Message], fixed: list[str]) -> None:
        for message in messages:
            self._counts[id(message)] = (message, counter.message(message))
        if fixed:
            self._fixed = sum(counter.text(text) for text in fixed)

    def _forget_dropped(self, messages: list[Message]) -> None:
        """Compactions drop messages; their cached counts go once they pile up."""
        if len(self._counts) > 2 * len(messages) + 64:
            live = {id(m) for m in messages}
            self._counts = {k: v for k, v in self._counts.items() if k in live}

    def count(self, message: Message) -> int:
        """The raw count of one message (counted now if it is new: keep those small)."""
        known = self._counts.get(id(message))
        if known is not None:
            return known[1]
        assert self._counter is not None, "measure() first"
        count = self._counter.message(message)
        self._counts[id(message)] = (message, count)
        return count

    @property
    def fixed(self) -> int:
        """Raw tokens of the system prompt and the tool schemas, as last measured."""
        return self._fixed

    async def text_tokens(self, model: str, text: str) -> int:
        counter = self.counter(model)
        if not counter.warm or len(text) > THREAD_CHARS:
            return await asyncio.to_thread(counter.text, text)
        return counter.text(text)

    # -- calibration

    def estimate(self, raw: int) -> int:
        """Provider tokens of a whole request we count ``raw``."""
        if self.anchor is None:
            return int(raw * self.ratio)
        anchor_raw, anchor_reported = self.anchor
        return max(0, int(anchor_reported + (raw - anchor_raw) * self.ratio))

    def raw_for(self, tokens: int) -> int:
        """The largest request, in our count, that the provider would count ``tokens``."""
        if self.anchor is None:
            return int(tokens / self.ratio)
        anchor_raw, anchor_reported = self.anchor
        return int(anchor_raw + (tokens - anchor_reported) / self.ratio)

    def to_raw(self, tokens: int) -> int:
        """A part of a request (one text, a share of the window) in our count."""
        return int(tokens / self.ratio)

    def scale(self, raw: int) -> int:
        """A part of a request in provider tokens."""
        return int(raw * self.ratio)

    def overflowed(self, raw: int, window: int) -> None:
        """The provider refused a request we counted ``raw`` as longer than ``window``."""
        self.anchor = (raw, max(window + 1, self.estimate(raw)))
        # Its word outweighs what it reported for the shorter requests before.
        self._reported = [(self._measured_length, self.anchor[1])]

    def calibrate(self, raw: int, reported: int) -> None:
        """Learn from the prompt tokens the provider reported for a request we counted
        ``raw``: it becomes the anchor, and the change since the previous anchor sets the
        ratio (halfway to the newest, so one odd answer moves it little)."""
        if raw <= 0 or reported <= 0:
            return
        if self.anchor is not None:
            moved_raw, moved_reported = raw - self.anchor[0], reported - self.anchor[1]
            if abs(moved_raw) >= MIN_CALIBRATION_TOKENS and moved_raw * moved_reported > 0:
                ratio = min(2.0, max(0.5, moved_reported / moved_raw))
                self.ratio = ratio if not self.calibrated else (self.ratio + ratio) / 2
                self.calibrated = True
        self.anchor = (raw, reported)
        self._note_reported(self._measured_length, reported)

    def answered(self, prompt_tokens: int, completion_tokens: int) -> None:
        """The answer to the last request joined the history: the provider counted it
        ``completion_tokens`` (the gauge adds the same)."""
        if self._reported and prompt_tokens and completion_tokens:
            length, tokens = self._reported[-1]
            if tokens == prompt_tokens:
                self._note_reported(length + 1, prompt_tokens + completion_tokens)

    def _note_reported(self, length: int, tokens: int) -> None:
        self._reported = [point for point in self._reported if point[0] < length]
        self._reported.append((length, tokens))

    def reported_prefixes(self, messages: list[Message]) -> list[int] | None:
        """For each ``i`` up to ``len(messages)``: provider tokens of a request holding the
        system prompt, the tools and ``messages[:i]``, from the nearest request the
        provider counted (our count, scaled, for the messages in between). None when no
        request was counted since the history was last rewritten. Counts ``messages``
        (keep the new ones few)."""
        points = [point for point in self._reported if point[0] <= len(messages)]
        if not points:
            return None
        raw = [0]
        for message in messages:
            raw.append(raw[-1] + self.count(message))
        prefixes = []
        nearest = 0
        for end in range(len(messages) + 1):
            while nearest + 1 < len(points) and points[nearest + 1][0] <= end:
                nearest += 1
            length, tokens = points[nearest]
            prefixes.append(max(0, tokens + self.scale(raw[end] - raw[length])))
        return prefixes


# ---- tool output --------------------------------------------------------------------------


def shorten(text: str, keep_chars: int, reason: str) -> str:
    """``text`` cut to about ``keep_chars``: the head (two thirds) and the tail, on line
    boundaries where possible, with a note of what was cut and why."""
    if len(text) <= keep_chars:
        return text
    head_end = _line_end(text, max(0, keep_chars * 2 // 3), backwards=True)
    tail_start = _line_end(text, len(text) - max(0, keep_chars // 3), backwards=False)
    if tail_start <= head_end:
        tail_start = head_end
    cut = text[head_end:tail_start]
    lines = cut.count("\n")
    note = (f"\n[... {lines:,} lines ({len(cut):,} characters) cut here: {reason} ...]\n")
    return text[:head_end] + note + text[tail_start:]


def _line_end(text: str, position: int, *, backwards: bool) -> int:
    """The nearest line start to ``position`` within 200 characters, else ``position``."""
    if backwards:
        found = text.rfind("\n", max(0, position - 200), position)
    else:
        found = text.find("\n", position, position + 200)
    return found + 1 if found != -1 else position


async def capped_output(tracker: ContextTracker, model: str, window: Window, text: str) -> str:
    """A tool result cut to about 20 % of the window, with a note saying so."""
    cap = tracker.budget(window).output_cap
    if len(text) <= cap:  # fewer characters than the cap's tokens: it cannot be over
        return text
    tokens = tracker.scale(await tracker.text_tokens(model, text))
    if tokens <= cap:
        return text
    reason = (f"the output was longer than {int(OUTPUT_SHARE * 100)} % of the context window; "
              "ask for a smaller part (a line range, a narrower pattern, head or tail)")
    return shorten(text, int(len(text) * cap / tokens * 0.95), reason)
