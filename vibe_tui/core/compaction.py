"""Freeing room in the conversation before it overflows the context window.

Before every model call, when the estimate passes ``compact_at`` of the window, room is
freed from the cheapest step to the dearest, each only while still needed:

1. stub: every tool result but the newest (about 15 % of the window) becomes one line
   naming the call ("[cleared: read_file returned 120 lines of src/a.py]");
2. summary: when that does not bring the estimate down to the target (three quarters of
   the threshold, so the next compaction is not one step away), the older turns are
   summarised by the model (goal, decisions, files and their state, what is left) and
   replaced by that summary; the newest exchange always stays verbatim;
3. cut: when it is still over the threshold, the newest large results are shortened.

The before and after it reports are the request's size as the provider counts it, the
gauge's measure: what the provider reported for the messages kept, our count only for the
new ones (``ContextTracker.reported_prefixes``); the decisions use the estimate.

Planning changes nothing by itself: it returns a ``Compaction``; the caller records it as
a ``Compacted`` event, and applying that event (``history.compacted``) makes the change,
live and on resume alike. Results are only ever rewritten in place and the summary
replaces a prefix that ends before a user or assistant message, so a tool call never loses
its result. Between compactions nothing before the newest messages changes, so the start
of each request is byte-identical to the previous one (prompt caches depend on it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from vibe_tui.core import history
from vibe_tui.core.context import Budget, ContextTracker, Window, shorten
from vibe_tui.core.history import Message
from vibe_tui.tools.base import CLEARED_NOTE_PREFIX

KEEP_RESULTS_SHARE = 0.15  # the newest results, this much of the window, are never stubbed
MANUAL_TAIL_SHARE = 0.1  # /compact keeps only this much of the newest messages verbatim
STUB_WORTH_TOKENS = 40  # a result smaller than this is not worth replacing by a stub
MIN_CUT_TOKENS = 200  # a cut result keeps at least this much
RESULT_PREVIEW_CHARS = 1500  # of each tool result, shown to the summariser
CHARS_PER_TOKEN_FLOOR = 3  # for character budgets: few texts pack more tokens than this


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
    if reason == "auto" and tracker.estimate(raw) <= budget.threshold:
        return None
    reported = tracker.reported_prefixes(messages)
    plan = Compaction(reason, reported[-1] if reported else tracker.estimate(raw),
                      focus=focus)
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
    plan.tokens_after = (_reported_after(tracker, messages, current, reported) if reported
                         else tracker.estimate(_total(tracker, current)))
    return plan


def _reported_after(tracker: ContextTracker, before: list[Message], after: list[Message],
                    reported: list[int]) -> int:
    """Provider tokens of the request ``after`` makes: a message kept from ``before`` costs
    what the provider counted for it there; a new one (summary, stub, cut) our count."""
    index = {id(message): i for i, message in enumerate(before)}
    total = reported[0]  # the system prompt and the tools
    for message in after:
        i = index.get(id(message))
        total += (reported[i + 1] - reported[i] if i is not None
                  else tracker.scale(tracker.count(message)))
    return total


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


def _parsed_calls(messages: list[Message]) -> Iterator[tuple[Any, dict[str, Any], Any]]:
    """Each call the assistant made, in order: (call id, its function, parsed arguments;
    {} when they are not JSON)."""
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            try:
                args = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            yield call.get("id"), function, args


def _calls_by_id(messages: list[Message]) -> dict[Any, tuple[str, dict[str, Any]]]:
    """Each call's name and arguments by call id."""
    return {call_id: (function.get("name", "a tool"), args if isinstance(args, dict) else {})
            for call_id, function, args in _parsed_calls(messages)}


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
    calls = [f"{function.get('name')} {history.describe_call('', args, 80)}"
             if isinstance(args, dict) else str(function.get("name"))
             for _, function, args in _parsed_calls(messages)]
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
