"""The ``todo`` tool: the model keeps a short checklist the user watches as a live plan.

Each call replaces the whole list, so the latest successful call is the plan; the views
read it from that call's ToolResult ``meta["items"]``, never from the text the model
reads. It touches nothing, so its request is a read with no paths: the policy allows it
in every mode, plan mode included, and a deny rule naming ``todo`` still denies it.

Small models get some slack: a plain string is a pending item, ``completed`` or
``in-progress`` mean what they say, and a list sent as a JSON string is read as the list.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Literal

from vibe_tui.policy.types import ToolKind, ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput

PlanState = Literal["pending", "in_progress", "done"]
PLAN_STATES: tuple[PlanState, ...] = ("pending", "in_progress", "done")
# Spellings other agents' plan tools and small models use, after lower-casing and
# turning "-" and " " into "_".
STATE_ALIASES: dict[str, PlanState] = {
    "pending": "pending", "todo": "pending", "to_do": "pending", "not_started": "pending",
    "open": "pending", "in_progress": "in_progress", "inprogress": "in_progress",
    "active": "in_progress", "doing": "in_progress", "current": "in_progress",
    "started": "in_progress", "done": "done", "completed": "done", "complete": "done",
    "finished": "done",
}
# Keys other plan tools use for an item's text and state.
TEXT_KEYS = ("text", "content", "step", "title")
STATE_KEYS = ("state", "status")
CHECKBOXES: dict[PlanState, str] = {"done": "[x]", "in_progress": "[>]", "pending": "[ ]"}
MAX_ITEMS = 20
MAX_TEXT_CHARS = 300


@dataclass(frozen=True)
class PlanItem:
    text: str
    state: PlanState


def parse_items(args: dict[str, Any]) -> list[PlanItem]:
    """The checklist a call sends, or a ToolError saying what to fix."""
    raw = args.get("items")
    if raw is None:
        raise ToolError("missing required argument 'items': the whole checklist, "
                        'e.g. [{"text": "read the code", "state": "in_progress"}]')
    if isinstance(raw, str):
        raw = _list_from_text(raw)
    if not isinstance(raw, list):
        raise ToolError(f"argument 'items' must be a list of items, got {type(raw).__name__}")
    if len(raw) > MAX_ITEMS:
        raise ToolError(f"the plan has {len(raw)} items; keep it to {MAX_ITEMS} or fewer "
                        "by merging small steps")
    return [_item(number, entry) for number, entry in enumerate(raw, start=1)]


def _list_from_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise ToolError("argument 'items' must be a list of items, not text") from None


def _item(number: int, entry: Any) -> PlanItem:
    if isinstance(entry, str):
        return PlanItem(_text(number, entry), "pending")
    if not isinstance(entry, dict):
        raise ToolError(f"item {number} must be an object with 'text' and 'state', "
                        f"got {type(entry).__name__}")
    text = next((entry[key] for key in TEXT_KEYS if key in entry), None)
    state = next((entry[key] for key in STATE_KEYS if key in entry), None)
    return PlanItem(_text(number, text), _state(number, state))


def _text(number: int, text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ToolError(f"item {number} has no text: say in a few words what the step is")
    one_line = " ".join(text.split())
    if len(one_line) > MAX_TEXT_CHARS:
        raise ToolError(f"item {number} is {len(one_line)} characters long; keep each item "
                        f"under {MAX_TEXT_CHARS}")
    return one_line


def _state(number: int, state: Any) -> PlanState:
    if state is None:
        return "pending"
    key = str(state).strip().lower().replace("-", "_").replace(" ", "_")
    if key not in STATE_ALIASES:
        raise ToolError(f"item {number} has state {state!r}; use pending, in_progress or done")
    return STATE_ALIASES[key]


def checklist(items: list[PlanItem]) -> str:
    """The plan as plain text lines: ``[x] done``, ``[>] in progress``, ``[ ] pending``."""
    return "\n".join(f"{CHECKBOXES[item.state]} {item.text}" for item in items)


def done_count(items: list[PlanItem]) -> int:
    return sum(item.state == "done" for item in items)


def plan_items(meta: Any) -> list[PlanItem]:
    """The items a plan result's ``meta`` holds. It may come from a JSONL log written by
    another version or edited by hand, so entries of the wrong shape are left out."""
    raw = meta.get("items") if isinstance(meta, dict) else None
    if not isinstance(raw, list):
        return []
    return [PlanItem(entry["text"], entry["state"]) for entry in raw[:MAX_ITEMS]
            if isinstance(entry, dict) and isinstance(entry.get("text"), str)
            and entry.get("state") in PLAN_STATES]


def _result_text(items: list[PlanItem]) -> str:
    if not items:
        return "plan cleared"
    text = f"plan updated: {done_count(items)} of {len(items)} done\n{checklist(items)}"
    working = sum(item.state == "in_progress" for item in items)
    if working > 1:
        # Advice, not a refusal: the plan is kept as sent.
        text += (f"\nnote: {working} items are in_progress; finish one before starting "
                 "the next")
    return text


class TodoTool:
    name = "todo"
    kind: ToolKind = "read"
    description = (
        "Keep a short checklist of the steps of a task that takes several steps; the user "
        "sees it as a live plan. Each call replaces the whole list: send every item, each "
        "with its state (pending, in_progress or done). Write the plan before starting, mark "
        "an item in_progress when you start it and done as soon as it is finished, one item "
        "in_progress at a time. Skip it for a question or a one-step change."
    )
    parameters = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "description": f"The whole plan, in order; at most {MAX_ITEMS} items.",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string",
                                 "description": "The step, in a few words."},
                        "state": {"type": "string", "enum": list(PLAN_STATES)},
                    },
                    "required": ["text", "state"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["items"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        parse_items(args)
        return ToolRequest(self.name, self.kind, args)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        items = parse_items(args)
        return ToolOutput(_result_text(items),
                          meta={"items": [asdict(item) for item in items]})


TODO_TOOLS = [TodoTool()]
