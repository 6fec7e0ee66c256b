"""The conversation the model sees, built from events.

The live session and ``--resume`` both build it with ``apply``, so a resumed session sends
exactly what the original would have sent.
"""

from __future__ import annotations

from typing import Any

from vibe_tui.core.events import AssistantMessage, Event, ToolResult, UserMessage
from vibe_tui.core.model import describe_arguments

Message = dict[str, Any]

UNFINISHED_CALL = "no result: the session stopped before this call finished"


def apply(messages: list[Message], event: Event) -> None:
    """Add what ``event`` contributes to the conversation, if anything."""
    if isinstance(event, UserMessage):
        messages.append({"role": "user", "content": event.text})
    elif isinstance(event, AssistantMessage):
        message = assistant_message(event.text, event.tool_calls)
        if message is not None:
            messages.append(message)
    elif isinstance(event, ToolResult):
        messages.append({"role": "tool", "tool_call_id": event.call_id, "content": event.output})


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


def messages_from_events(events: list[Event]) -> list[Message]:
    messages: list[Message] = []
    for event in events:
        apply(messages, event)
    return messages


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
