"""The context window: how full the conversation is, and freeing room before it overflows.

Counting: LiteLLM's tokenizer for the model (``litellm.encode``: the tokenizer that
``token_counter`` picks, without its 150 µs of overhead per call; tiktoken for most
models), cached per message object and per text. The provider's count is the truth; ours
only has to move with it. An estimate is the prompt tokens the last response reported,
plus the change since that request, scaled by how the provider's count moved against ours
between two requests (providers count tool schemas and message framing their own way, so
one overall ratio would misjudge a single text). Texts too big to count in a blink, and
the first count of a model (its tokenizer loads), run in a thread.

Before every model call, when the estimate passes ``compact_at`` of the window, room is
freed from the cheapest step to the dearest, each only while still needed:

1. stub: every tool result but the newest (about 15 % of the window) becomes one line
   naming the call ("[cleared: read_file returned 120 lines of src/a.py]");
2. summary: when that does not bring the estimate down to the target (three quarters of
   the threshold, so the next compaction is not one step away), the older turns are
   summarised by the model (goal, decisions, files and their state, what is left) and
   replaced by that summary; the newest exchange always stays verbatim;
3. cut: when it is still over the threshold, the newest large results are shortened.

Planning changes nothing by itself: it returns a ``Compaction``; the caller records it as
a ``Compacted`` event, and applying that event (``history.compacted``) makes the change,
live and on resume alike. Results are only ever rewritten in place and the summary
replaces a prefix that ends before a user or assistant message, so a tool call never loses
its result. Between compactions nothing before the newest messages changes, so the start
of each request is byte-identical to the previous one (prompt caches depend on it).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from vibe_tui.config.settings import Config
from vibe_tui.core import history
from vibe_tui.core.history import Message
from vibe_tui.core.model import litellm_loaded, litellm_module, loaded_litellm, max_input_tokens
from vibe_tui.tools.base import CLEARED_NOTE_PREFIX

DEFAULT_WINDOW = 8192
OUTPUT_SHARE = 0.2  # one tool result may fill at most this much of the window
KEEP_RESULTS_SHARE = 0.15  # the newest results, this much of the window, are never stubbed
TARGET_SHARE = 0.75  # of the threshold: where a compaction aims, so it is not needed again soon
SUMMARY_SHARE = 0.1  # room left for the summary itself
MANUAL_TAIL_SHARE = 0.1  # /compact keeps only this much of the newest messages verbatim
MAX_SUMMARY_TOKENS = 1024
STUB_WORTH_TOKENS = 40  # a result smaller than this is not worth replacing by a stub
MIN_CUT_TOKENS = 200  # a cut result keeps at least this much
RESULT_PREVIEW_CHARS = 1500  # of each tool result, shown to the summariser
CHARS_PER_TOKEN_FLOOR = 3  # for character budgets: few texts pack more tokens than this
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
                count = len(litellm_module().encode(model=self.model, text=text))
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

    # -- the window

    def forget_windows(self) -> None:
        """The settings changed (a window override, another endpoint): look again."""
        self._windows.clear()

    async def window(self, model: str) -> Window:
        window = self._windows.get(model)
        if window is None:
            if not litellm_loaded():
                await loaded_litellm()
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


# ---- the plan ---------------------------------------------------------------------------


@dataclass
class Compaction:
    """What one compaction changes; the fields of a ``Compacted`` event."""

    reason: str
    tokens_before: int
    tokens_after: int = 0
    steps: list[str] = field(default_factory=list)
    stubs: list[list[Any]] = field(default_factory=list)
    cuts: list[list[Any]] = field(default_factory=list)
    summarised: int = 0
    summary: str | None = None
    focus: str | None = None


# Writes the summary from a request (system + user message); None when the call failed.
Summariser = Callable[[list[Message]], Awaitable[str | None]]


async def compact(tracker: ContextTracker, *, model: str, window: Window,
                  system: str, tools: list[dict[str, Any]], messages: list[Message],
                  summarise: Summariser, reason: str = "auto",
                  focus: str | None = None) -> Compaction | None:
    """Plan the freeing of room in ``messages``; None when nothing needs to (or can) change.
    ``reason`` auto: only past the threshold, cheapest step first; manual (``/compact``):
    summarise whatever is not recent, whatever the fill."""
    budget = tracker.budget(window)
    raw = await tracker.measure(model, system, tools, messages)
    plan = Compaction(reason, tracker.estimate(raw), focus=focus)
    if reason == "auto" and plan.tokens_before <= budget.threshold:
        return None
    current = messages
    if reason == "auto":
        current = _stub_step(tracker, budget, current, plan)
    # Past the target after the stubs, the next compaction would come within a step or
    # two, and each one changes the start of the conversation: summarise now instead.
    if reason == "manual" or _over(tracker, current, budget.target):
        current = await _summary_step(tracker, budget, messages, current, plan, summarise)
    if _over(tracker, current, budget.threshold):
        current = _cut_step(tracker, budget, messages, current, plan)
    if not plan.steps:
        return None
    plan.tokens_after = tracker.estimate(_total(tracker, current))
    return plan


def _total(tracker: ContextTracker, messages: list[Message]) -> int:
    return tracker.fixed + sum(tracker.count(m) for m in messages)


def _over(tracker: ContextTracker, messages: list[Message], tokens: int) -> bool:
    return tracker.estimate(_total(tracker, messages)) > tokens


# -- step 1: stubs


def _stub_step(tracker: ContextTracker, budget: Budget, messages: list[Message],
               plan: Compaction) -> list[Message]:
    """Every result outside the protected newest ones: stubbing only what the target needs
    would bring the next compaction (and its change to the cached prefix) sooner."""
    counts = [tracker.count(m) for m in messages]
    keep = protected_results(messages, counts, tracker.to_raw(
        int(budget.window * KEEP_RESULTS_SHARE)))
    stubs = plan_stubs(messages, counts, keep)
    if not stubs:
        return messages
    plan.steps.append("stub")
    plan.stubs = stubs
    return history.compacted(messages, stubs, [], 0, None)


def protected_results(messages: list[Message], counts: list[int], keep_tokens: int) -> set[int]:
    """Indices of the newest tool results kept whole: the latest batch (the model has not
    answered them yet) always, then newer ones first while they fit in ``keep_tokens``."""
    kept: set[int] = set()
    used = 0
    latest_batch = True
    for index in range(len(messages) - 1, -1, -1):
        role = messages[index]["role"]
        if role == "assistant":
            latest_batch = False
        if role != "tool":
            continue
        if latest_batch or used + counts[index] <= keep_tokens:
            kept.add(index)
            used += counts[index]
        else:
            break
    return kept


def plan_stubs(messages: list[Message], counts: list[int],
               protected: set[int]) -> list[list[Any]]:
    """A stub for every result that is not protected and is worth replacing."""
    calls = _calls_by_id(messages)
    stubs: list[list[Any]] = []
    for index, message in enumerate(messages):
        if message["role"] != "tool" or index in protected:
            continue
        if counts[index] < STUB_WORTH_TOKENS or _is_stub(message):
            continue
        name, args = calls.get(message.get("tool_call_id"), ("a tool", {}))
        stubs.append([index, stub_text(message.get("content") or "", name, args)])
    return stubs


def _is_stub(message: Message) -> bool:
    content = message.get("content")
    return isinstance(content, str) and content.startswith(CLEARED_NOTE_PREFIX)


def stub_text(content: str, name: str, args: dict[str, Any]) -> str:
    """One line saying what a result was: "[cleared: read_file returned 120 lines of a.py]"."""
    lines = content.count("\n") + 1 if content else 0
    return f"{CLEARED_NOTE_PREFIX}{name} returned {lines} line{'s' if lines != 1 else ''}{_what(args)}]"


def _calls_by_id(messages: list[Message]) -> dict[Any, tuple[str, dict[str, Any]]]:
    """Each call's name and arguments by call id."""
    calls = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            try:
                args = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            calls[call.get("id")] = (function.get("name", "a tool"),
                                     args if isinstance(args, dict) else {})
    return calls


def _what(args: dict[str, Any]) -> str:
    if not args:
        return ""
    line = history.describe_call("", args, width=80)
    if isinstance(args.get("path"), str) and not args.get("pattern"):
        return f" of {line}"
    return f" for {line}"


# -- step 2: summary


async def _summary_step(tracker: ContextTracker, budget: Budget, original: list[Message],
                        current: list[Message], plan: Compaction,
                        summarise: Summariser) -> list[Message]:
    counts = [tracker.count(m) for m in current]
    tail_tokens = (tracker.raw_for(budget.target) - tracker.fixed
                   - tracker.to_raw(budget.summary_tokens))
    if plan.reason == "manual":  # asked for by hand: keep only the most recent exchange
        tail_tokens = min(tail_tokens, tracker.to_raw(int(budget.window * MANUAL_TAIL_SHARE)))
    keep_from = summary_cut(current, counts, max(0, tail_tokens))
    if keep_from == 0 or (keep_from == 1 and _is_summary(current[0])):
        return current  # nothing older than the recent messages
    if plan.reason == "auto" and sum(counts[:keep_from]) <= tracker.to_raw(
            budget.summary_tokens):
        return current  # smaller than the summary would be
    request = summary_request(original[:keep_from], plan.focus, budget)
    summary = await summarise(request)
    if not summary or not summary.strip():
        summary = plain_record(original[:keep_from])
    summary = summary.strip() + _latest_request(original[:keep_from], original[keep_from:])
    plan.steps.append("summary")
    plan.summarised, plan.summary = keep_from, summary
    return history.compacted(current, [], [], keep_from, summary)


def summary_cut(messages: list[Message], counts: list[int], tail_tokens: int) -> int:
    """How many leading messages to summarise: the newest ones that fit in ``tail_tokens``
    stay verbatim, and always the newest exchange (the last user or assistant message and
    the results after it: they are not "older turns"). The kept part never starts with a
    tool result, whose call would be gone."""
    start = len(messages)
    used = 0
    while start > 0 and used + counts[start - 1] <= tail_tokens:
        start -= 1
        used += counts[start]
    while start < len(messages) and messages[start]["role"] == "tool":
        start += 1
    newest = next((i for i in range(len(messages) - 1, -1, -1)
                   if messages[i]["role"] != "tool"), 0)
    return min(start, newest)


def _is_summary(message: Message) -> bool:
    content = message.get("content")
    return (message["role"] == "user" and isinstance(content, str)
            and content.startswith(history.SUMMARY_HEADER))


def _latest_request(summarised: list[Message], kept: list[Message]) -> str:
    """The user's newest words, verbatim, when they are among the summarised messages: the
    turn's own request must survive a summary made in the middle of that turn."""
    if any(m["role"] == "user" for m in kept):
        return ""
    for message in reversed(summarised):
        if message["role"] == "user" and not _is_summary(message):
            text = message.get("content") or ""
            if len(text) > 4000:
                text = text[:4000] + " …"
            return f"\n\nThe user's latest request, verbatim:\n{text}"
    return ""


def summary_request(messages: list[Message], focus: str | None, budget: Budget) -> list[Message]:
    """The summariser's two messages: its instructions and the transcript to summarise."""
    from vibe_tui.core.prompts import summary_prompt

    words = max(120, min(500, int(budget.summary_tokens * 0.6)))
    room = max(2000, int(budget.threshold * CHARS_PER_TOKEN_FLOOR * 0.8))
    return [
        {"role": "system", "content": summary_prompt(focus, words)},
        {"role": "user", "content": "The conversation to summarise:\n\n"
                                    + transcript(messages, room)},
    ]


def transcript(messages: list[Message], room: int) -> str:
    """The messages as plain text for the summariser, tool output shortened. Past ``room``
    characters the oldest blocks go, except the first (it holds the original request)."""
    names = {call.get("id"): call.get("function", {}).get("name", "tool")
             for m in messages for call in m.get("tool_calls") or ()}
    blocks = [_block(m, names) for m in messages]
    if sum(len(b) for b in blocks) <= room or len(blocks) < 3:
        return "\n\n".join(blocks)
    first, rest = blocks[0], blocks[1:]
    kept: list[str] = []
    used = len(first)
    for block in reversed(rest):
        if used + len(block) > room:
            break
        kept.append(block)
        used += len(block)
    left_out = len(rest) - len(kept)
    return "\n\n".join([first, f"[... {left_out} messages left out ...]", *reversed(kept)])


def _block(message: Message, names: dict[Any, str]) -> str:
    role = message["role"]
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = json.dumps(content)
    if role == "tool":
        name = names.get(message.get("tool_call_id"), "tool")
        return f"## Result of {name}\n{shorten(content, RESULT_PREVIEW_CHARS, 'shortened')}"
    if _is_summary(message):
        return "## Summary of the conversation before this\n" + content
    lines = [f"## {role.capitalize()}"]
    if content:
        lines.append(content)
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        lines.append(f"-> called {function.get('name')}({function.get('arguments', '')[:500]})")
    return "\n".join(lines)


def plain_record(messages: list[Message]) -> str:
    """A summary without a model, when the summary call fails: the user's requests and the
    calls made, so the agent still knows the goal and what it touched."""
    requests = [m["content"] for m in messages
                if m["role"] == "user" and isinstance(m.get("content"), str)]
    calls = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            try:
                args = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            calls.append(f"{function.get('name')} {history.describe_call('', args, 80)}"
                         if isinstance(args, dict) else str(function.get("name")))
    lines = ["(No model summary could be written; this is a plain record of the earlier "
             "conversation.)", "Requests and notes:"]
    lines += [f"- {shorten(text, 600, 'shortened')}" for text in requests[-10:]]
    if calls:
        lines.append(f"Tool calls made ({len(calls)}; the last 30):")
        lines += [f"- {call}" for call in calls[-30:]]
    return "\n".join(lines)


# -- step 3: cut


def _cut_step(tracker: ContextTracker, budget: Budget, original: list[Message],
              current: list[Message], plan: Compaction) -> list[Message]:
    """Shorten the newest large results until the estimate is back at the target. Works
    on the stubbed messages in their original numbering, past any summarised part."""
    stubbed = history.compacted(original, plan.stubs, [], 0, None)
    excess = _total(tracker, current) - tracker.raw_for(budget.target)
    cuts: list[list[Any]] = []
    for index in range(len(stubbed) - 1, plan.summarised - 1, -1):
        if excess <= 0:
            break
        message = stubbed[index]
        count = tracker.count(message)
        if message["role"] != "tool" or count <= MIN_CUT_TOKENS * 2:
            continue
        keep = max(MIN_CUT_TOKENS, count - excess)
        content = message.get("content") or ""
        text = shorten(content, int(len(content) * keep / count),
                       "cut to free room in the context window")
        cuts.append([index, text])
        excess -= count - keep
    if not cuts:
        return current
    plan.steps.append("cut")
    plan.cuts = cuts
    return history.compacted(original, plan.stubs, cuts, plan.summarised, plan.summary)


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
