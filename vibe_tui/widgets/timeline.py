"""The compact tool-call timeline: one line per call, keyed by call id, updated in place.

It is the overview column on wide terminals; the full item (output, diff) lives in the
conversation. Selecting a line (Enter or click) asks the app to reveal that item; ``c``
asks it to copy the call's output.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from vibe_tui.core import events as ev
from vibe_tui.core.hook_lines import hook_line
from vibe_tui.core.plan import plan_of, progress
from vibe_tui.safe_text import safe_name
from vibe_tui.widgets.timeline_item import STATES, CopyCallOutput, format_duration, state_of

HOOK_STATES = {"ok": STATES["ok"], "blocked": STATES["denied"], "failed": STATES["error"],
               "timeout": STATES["interrupted"]}
# An OptionList rebuilds its line cache on change; a cap keeps that cheap in long sessions.
MAX_ROWS = 300
PRUNE_SLACK = 50


class TimelineRow:
    """What one line shows; kept so a state change can redraw it."""

    def __init__(self, call: ev.ToolCall, option_id: str) -> None:
        self.call_id = call.call_id
        self.option_id = option_id
        # The call's main argument, often a path or a command: shown as it really is.
        self.tool = safe_name(call.tool)
        self.summary = safe_name(call.summary)
        self.state = "running"
        self.duration = ""
        self.nested = call.parent_call_id is not None  # a sub-agent's call

    def prompt(self) -> Content:
        icon, style, _ = STATES.get(self.state, STATES["error"])
        parts: list[str | tuple[str, str]] = [("  ↳ ", "$text-muted")] if self.nested else []
        parts += [(icon, style), " ", (self.tool, "bold"), " "]
        if self.duration:
            parts += [(self.duration, "$text-muted"), " "]
        parts.append((self.summary, "$text-muted"))
        return Content.assemble(*parts)


def hook_row(event: ev.HookRan) -> Content:
    """A hook's line: it ran for the call above it, so it is indented like a sub-call."""
    icon, style, _ = HOOK_STATES.get(event.status, STATES["error"])
    return Content.assemble(("  ⚓ ", "$text-muted"), (icon, style), " ",
                            (safe_name(hook_line(event, limit=120)), "$text-muted"))


class Timeline(OptionList):
    DEFAULT_CSS = """
    Timeline {
        height: 1fr;
        border: none;
        border-left: vkey $panel-lighten-1;
        padding: 0;
        background: $background;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:focus { border: none; border-left: vkey $primary; }
    }
    """

    BINDINGS = [Binding("c", "copy_output", "copy output", show=False)]

    class CallSelected(Message):
        def __init__(self, call_id: str) -> None:
            super().__init__()
            self.call_id = call_id

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._rows: dict[str, TimelineRow] = {}  # by call id: the latest call with that id
        self._calls_by_option: dict[str, str] = {}
        # Option ids are ours: some servers reuse call ids ("call_0" in every response).
        self._added = 0

    def show_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.ToolCall):
            self._add(event)
            return
        if isinstance(event, ev.HookRan):
            self._add_line(hook_row(event))
            return
        row = self._rows.get(getattr(event, "call_id", None) or "")
        if row is None:
            return
        if isinstance(event, ev.ApprovalRequested):
            row.state = "waiting"
        elif isinstance(event, ev.ApprovalResolved):
            row.state = "denied" if event.decision == "deny" else "running"
        elif isinstance(event, ev.ToolResult):
            row.state = state_of(event)
            row.duration = format_duration(event.duration_s)
            plan = plan_of(event)
            if plan is not None:  # its arguments are a list in JSON; a count says more
                row.summary = progress(plan)
        else:
            return
        self.replace_option_prompt(row.option_id, row.prompt())

    def option_id(self, call_id: str) -> str | None:
        row = self._rows.get(call_id)
        return row.option_id if row else None

    def _add(self, call: ev.ToolCall) -> None:
        self._added += 1
        row = TimelineRow(call, f"row-{self._added}")
        self._rows[call.call_id] = row
        self._calls_by_option[row.option_id] = call.call_id
        self._add_line(row.prompt(), row.option_id)

    def _add_line(self, prompt: Content, option_id: str | None = None) -> None:
        if option_id is None:
            self._added += 1
            option_id = f"row-{self._added}"
        self.add_option(Option(prompt, id=option_id))
        if self.option_count > MAX_ROWS + PRUNE_SLACK:
            self._prune()
        # Follow the newest call unless the user is looking at an older one.
        if self.highlighted is None or not self.has_focus:
            self.scroll_end(animate=False)

    def _prune(self) -> None:
        kept = self.options[-MAX_ROWS:]
        kept_ids = {option.id for option in kept}
        self._rows = {cid: row for cid, row in self._rows.items() if row.option_id in kept_ids}
        self._calls_by_option = {oid: cid for oid, cid in self._calls_by_option.items()
                                 if oid in kept_ids}
        highlighted = self.highlighted_option
        self.set_options(kept)
        if highlighted is not None and highlighted.id in kept_ids:
            self.highlighted = self.get_option_index(highlighted.id)

    def action_copy_output(self) -> None:
        option = self.highlighted_option
        call_id = self._calls_by_option.get(option.id or "") if option is not None else None
        if call_id is not None:
            self.post_message(CopyCallOutput(call_id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        call_id = self._calls_by_option.get(event.option.id or "")
        if call_id is not None:
            self.post_message(self.CallSelected(call_id))
