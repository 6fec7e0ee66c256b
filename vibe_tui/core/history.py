"""The conversation the model sees, built from events.

The live session and ``--resume`` both build it with ``apply``, so a resumed session sends
exactly what the original would have sent. Compactions are events too: applying one
replaces old tool results by stubs and older turns by a summary, the same way live and
on resume.
"""

from __future__ import annotations

import json
from typing import Any

from vibe_tui.core.events import AssistantMessage, Compacted, Event, ToolResult, UserMessage
from vibe_tui.core.model import describe_arguments

Message = dict[str, Any]

UNFINISHED_CALL = "no result: the session stopped before this call finished"
SUMMARY_HEADER = ("[vibe-tui: the earlier conversation was summarised to free context. "
                  "Summary:]")


def apply(messages: list[Message], event: Event, scope: str | None = None) -> None:
    """Add what ``event`` contributes to the conversation, if anything. ``scope`` is the
    call id of a sub-agent whose conversation this is (None: the main one)."""
    if event.parent_call_id != scope:
        return
    if isinstance(event, UserMessage):
        content = f"{event.context}\n\n{event.text}" if event.context else event.text
        messages.append({"role": "user", "content": content})
    elif isinstance(event, AssistantMessage):
        message = assistant_message(event.text, event.tool_calls)
        if message is not None:
            messages.append(message)
    elif isinstance(event, ToolResult):
        messages.append({"role": "tool", "tool_call_id": event.call_id, "content": event.output})
    elif isinstance(event, Compacted):
        messages[:] = compacted(messages, event.stubs, event.cuts, event.summarised,
                                event.summary)


def compacted(messages: list[Message], stubs: list[list[Any]], cuts: list[list[Any]],
              summarised: int, summary: str | None) -> list[Message]:
    """The conversation after a compaction. Changed messages are new dicts (token counts
    are cached per message object); an index that no longer names a tool result is
    skipped rather than trusted."""
    result = list(messages)
    for index, content in [*stubs, *cuts]:
        if 0 <= index < len(result) and result[index]["role"] == "tool":
            result[index] = {**result[index], "content": content}
    if summarised and summary is not None:
        result[:summarised] = [summary_message(summary)]
    return result


def summary_message(summary: str) -> Message:
    return {"role": "user", "content": f"{SUMMARY_HEADER}\n{summary}"}


def describe_call(tool: str, args: dict[str, Any], width: int = 118) -> str:
    """One line naming a call by the argument that says most about it."""
    for key in ("command", "path", "pattern", "query", "prompt", "session_id"):
        value = args.get(key)
        if isinstance(value, str) and value:
            line = value.splitlines()[0] if value.splitlines() else value
            extra = " …" if "\n" in value.strip() else ""
            if key == "pattern" and args.get("path"):
                line = f"{line} in {args['path']}"
            return (line[:width - 1] + "…" if len(line) > width else line) + extra
    text = json.dumps(args, ensure_ascii=False, default=str)
    return text[:width - 1] + "…" if len(text) > width else text


def assistant_message(text: str, tool_calls: list[dict[str, Any]]) -> Message | None:
    if not text and not tool_calls:
        return None  # providers reject empty assistant messages
    message: Message = {"role": "assistant", "content": text or None}
    if tool_calls:
        message["tool_calls"] = [sanitised_call(call) for call in tool_calls]
    return message


def sanitised_call(call: dict[str, Any]) -> dict[str, Any]:
    """Malformed arguments are replaced by ``{}`` in the history: left in, they make some
    servers answer HTTP 500 on every later request. The tool result says what was wrong."""
    function = call.get("function", {})
    raw = function.get("arguments") or ""
    args, problem = describe_arguments(raw)
    arguments = raw if problem is None and raw.strip() else "{}"
    return {
        "id": call.get("id", ""),
        "type": "function",
        "function": {"name": function.get("name", ""), "arguments": arguments},
    }


def repaired(messages: list[Message]) -> list[Message]:
    """A copy that every provider accepts: each tool call answered right after the message
    that made it (a crash or a cut can leave one open)."""
    result: list[Message] = []
    open_ids: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            if message["tool_call_id"] in open_ids:
                open_ids.remove(message["tool_call_id"])
                result.append(message)
            continue  # a result with no call before it would be rejected
        result.extend(_close(open_ids))
        open_ids = []
        result.append(message)
        if message["role"] == "assistant":
            open_ids = [call["id"] for call in message.get("tool_calls", [])]
    result.extend(_close(open_ids))
    return result


def _close(open_ids: list[str]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": cid, "content": UNFINISHED_CALL} for cid in open_ids]
