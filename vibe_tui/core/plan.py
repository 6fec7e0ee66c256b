"""The session's plan, derived from its events: the items of the last successful ``todo``
call of the main agent (a sub-agent has no plan of its own).

Views use this live and on resume alike, so a resumed session shows the plan it had.
"""

from __future__ import annotations

from collections.abc import Iterable

from vibe_tui.core import events as ev
from vibe_tui.tools.todo import PlanItem, checklist, done_count, plan_items

__all__ = ["PlanItem", "checklist", "current_plan", "done_count", "plan_of", "progress"]


def plan_of(event: ev.Event) -> list[PlanItem] | None:
    """The plan an event sets (an empty list clears it), or None when it sets none."""
    if not isinstance(event, ev.ToolResult) or event.kind != "plan":
        return None
    if event.status != "ok" or event.parent_call_id is not None:
        return None
    return plan_items(event.meta)


def current_plan(events: Iterable[ev.Event]) -> list[PlanItem]:
    plan: list[PlanItem] = []
    for event in events:
        items = plan_of(event)
        if items is not None:
            plan = items
    return plan


def progress(items: list[PlanItem]) -> str:
    """One line for a plan: ``plan: 2/5 done``."""
    return f"plan: {done_count(items)}/{len(items)} done" if items else "plan cleared"
