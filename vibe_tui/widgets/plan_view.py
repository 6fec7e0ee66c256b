"""The agent's plan as a live checklist above the prompt, drawn from ``todo`` results.

Hidden while there is no plan. A plan whose items are all done stays in view until the
next turn starts, so the user sees it finished; then it goes. Resumed sessions replay
their events through ``show_event`` too, which brings their plan back.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from vibe_tui.core import events as ev
from vibe_tui.core.plan import PlanItem, done_count, plan_of
from vibe_tui.safe_text import safe_name

# (mark, mark style, text style) per state; finished steps fade.
MARKS: dict[str, tuple[str, str, str]] = {
    "done": ("✓", "$success", "$text-muted"),
    "in_progress": ("▶", "bold $accent", "bold"),
    "pending": ("○", "$text-muted", ""),
}
# Above the prompt every line is one the conversation loses: a long plan shows a window
# of it that starts at the first unfinished item.
MAX_SHOWN = 8


def shown_window(items: list[PlanItem]) -> tuple[int, int]:
    """Where the shown part of the plan starts and ends."""
    if len(items) <= MAX_SHOWN:
        return 0, len(items)
    first_open = next((i for i, item in enumerate(items) if item.state != "done"), len(items))
    start = min(first_open, len(items) - MAX_SHOWN)
    return start, start + MAX_SHOWN


class PlanView(Static):
    DEFAULT_CSS = """
    PlanView {
        display: none;
        height: auto;
        padding: 0 1;
        border-top: solid $panel-lighten-1;
        background: $surface;
        &.-shown { display: block; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[PlanItem] = []

    def show_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted) and event.parent_call_id is None:
            if self.items and done_count(self.items) == len(self.items):
                self.show_plan([])  # finished last turn: the new one starts without it
            return
        items = plan_of(event)
        if items is not None:
            self.show_plan(items)

    def show_plan(self, items: list[PlanItem]) -> None:
        self.items = items
        self.set_class(bool(items), "-shown")
        self.update(self._checklist() if items else "")

    def _checklist(self) -> Content:
        items = self.items
        start, end = shown_window(items)
        lines = [Content.assemble(("Plan", "bold"), f" {done_count(items)}/{len(items)}")]
        if start:
            lines.append(Content.styled(f"  … {start} done above", "$text-muted"))
        for item in items[start:end]:
            mark, mark_style, text_style = MARKS[item.state]
            lines.append(Content.assemble("  ", (mark, mark_style), " ",
                                          (safe_name(item.text), text_style)))
        if end < len(items):
            lines.append(Content.styled(f"  … {len(items) - end} more", "$text-muted"))
        return Content("\n").join(lines)
