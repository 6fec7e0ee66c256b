"""Resuming a log that a crash (even SIGKILL) left mid-turn: the events that close it.

Views then see no turn still running, and the model gets a valid history: every open
approval denied, every call answered, the turn ended as interrupted.
"""

from __future__ import annotations

from collections.abc import Iterable

from vibe_tui.core import events as ev
from vibe_tui.core import history
from vibe_tui.core.events import Event

STOPPED_TURN = "the session stopped before this turn ended"


def closing_events(events: list[Event], open_approvals: Iterable[ev.ApprovalRequested],
                   ) -> tuple[int, list[Event]] | None:
    """The turn left open and the events that close it, in order; None when none is."""
    turn_id = _open_turn(events)
    if turn_id is None:
        return None
    closing: list[Event] = [
        ev.ApprovalResolved(approval_id=approval.approval_id, call_id=approval.call_id,
                            decision="deny", by="interrupt", note=STOPPED_TURN,
                            parent_call_id=approval.parent_call_id)
        for approval in open_approvals if approval.turn_id == turn_id]
    closing += [ev.ToolResult(call_id=call_id, tool=tool, output=history.UNFINISHED_CALL,
                              status="interrupted", parent_call_id=parent)
                for call_id, tool, parent in _unanswered_calls(events, turn_id)]
    closing.append(ev.TurnEnded(state="interrupted", message=STOPPED_TURN))
    return turn_id, closing


def _open_turn(events: list[Event]) -> int | None:
    """The id of the last turn if it started and never ended."""
    started = [e.turn_id for e in events if isinstance(e, ev.TurnStarted)]
    if not started:
        return None
    ended = {e.turn_id for e in events if isinstance(e, ev.TurnEnded)}
    return started[-1] if started[-1] not in ended else None


def _unanswered_calls(events: list[Event], turn_id: int) -> list[tuple[str, str, str | None]]:
    """(call id, tool, parent call id) of every call of the turn that has no result, in the
    order they were made: announced calls, and calls a response asked for that never ran."""
    answered = {e.call_id for e in events if isinstance(e, ev.ToolResult)}
    calls: dict[str, tuple[str, str | None]] = {}
    for event in events:
        if event.turn_id != turn_id:
            continue
        if isinstance(event, ev.AssistantMessage):
            for call in event.tool_calls:
                name = call.get("function", {}).get("name", "")
                calls.setdefault(call.get("id", ""), (name, event.parent_call_id))
        elif isinstance(event, ev.ToolCall):
            calls.setdefault(event.call_id, (event.tool, event.parent_call_id))
    return [(cid, tool, parent) for cid, (tool, parent) in calls.items()
            if cid and cid not in answered]
