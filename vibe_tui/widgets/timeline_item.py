"""One tool call in the conversation, updated in place as its events arrive.

Collapsed it is two lines: state icon, tool, summary and duration, then the first line of
the result. Enter or a click shows the whole output, or the diff for an edit; ``c`` copies the output. An
``interactive_start`` call is followed by the live terminal of the session it started
(``TerminalView``); there Enter or a click puts the keys in the terminal.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from vibe_tui.core import events as ev
from vibe_tui.core.plan import plan_of
from vibe_tui.safe_text import safe, safe_name
from vibe_tui.widgets.sizes import laid_out_size
from vibe_tui.widgets.tool_kinds import EDIT_TOOLS, TERMINAL_TOOL

if TYPE_CHECKING:
    from vibe_tui.core.terminals import PtySession
    from vibe_tui.widgets.terminal_view import TerminalView

# state -> (icon, style, words shown while the call is not finished)
STATES: dict[str, tuple[str, str, str]] = {
    "waiting": ("?", "bold $warning", "waiting for approval"),
    "running": ("⋯", "bold $accent", "running"),
    "ok": ("✓", "bold $success", ""),
    "error": ("✗", "bold $error", ""),
    "denied": ("⊘", "bold $error", "denied"),
    "interrupted": ("■", "bold $warning", "interrupted"),
}
# The expanded output is for reading, not for a 100k-character dump to lay out at once.
MAX_SHOWN_LINES = 400


class Durations:
    """Whether durations are drawn. Snapshot tests turn them off: they vary run to run."""

    shown = True


def format_duration(seconds: float) -> str:
    if not Durations.shown or seconds <= 0:
        return ""
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def state_of(result: ev.ToolResult) -> str:
    return result.status if result.status in STATES else "error"


def first_line(output: str) -> tuple[str, int]:
    """The first non-empty line of an output and how many lines follow it."""
    lines = safe(output).rstrip("\n").splitlines()
    for index, line in enumerate(lines):
        if line.strip():
            return line.strip(), len(lines) - index - 1
    return "", 0


def capped(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= MAX_SHOWN_LINES:
        return text
    hidden = len(lines) - MAX_SHOWN_LINES
    return "\n".join(lines[:MAX_SHOWN_LINES]) + f"\n… {hidden} more lines"


class CopyCallOutput(Message):
    """``c`` on a tool call or its timeline row: the app copies the call's output, as the
    session recorded it."""

    def __init__(self, call_id: str) -> None:
        super().__init__()
        self.call_id = call_id


class ToolCallItem(Static):
    """A single widget while collapsed (a long session holds hundreds of these, and
    Textual's layout visits every mounted widget). Expanding mounts the output, or the
    diff, as the next entry of the conversation, and collapsing removes it."""

    virtual_size = laid_out_size()

    # Not scoped: the expanded output is a sibling of the item, not a child.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    ToolCallItem {
        height: auto;
        padding: 0 1;
        margin-bottom: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:focus { background: $boost; }
        &.-expanded { margin-bottom: 0; }
    }
    .tool-call-output {
        margin: 0 0 1 3;
        padding: 0 1;
        height: auto;
        max-height: 30;
        overflow-y: auto;
        background: $surface;
        color: $text-muted;
    }
    """
    # Clicking expands; taking focus would steal the keys the user types next.
    FOCUS_ON_CLICK = False
    BINDINGS = [Binding("enter", "toggle", "expand", show=False),
                Binding("c", "copy_output", "copy output", show=False)]

    state = reactive("running")
    expanded = reactive(False)

    def __init__(self, call: ev.ToolCall) -> None:
        super().__init__()
        self.can_focus = True
        self.call = call
        self.result: ev.ToolResult | None = None
        self.approval_diff: str | None = None
        self._output: Widget | None = None  # the expanded output, when shown
        self.terminal: TerminalView | None = None  # the session interactive_start started
        self.update(self._summary())

    @property
    def call_id(self) -> str:
        return self.call.call_id

    # ---- updates from events ----------------------------------------------------------

    def show_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequested):
            self.approval_diff = event.diff
            self.state = "waiting"
        elif isinstance(event, ev.ApprovalResolved):
            # A denial waits for its ToolResult, which says why.
            self.state = "running" if event.decision != "deny" else "denied"
        elif isinstance(event, ev.ToolResult):
            self.result = event
            self.state = state_of(event)
            self.update(self._summary())  # the state may not change (denied), the result did
            if self.expanded:
                self._show_output()
            self._show_terminal(event)

    def watch_state(self, old: str, new: str) -> None:
        self.remove_class(f"-{old}")
        self.add_class(f"-{new}")
        self.update(self._summary())

    def _summary(self) -> Content:
        icon, style, words = STATES.get(self.state, STATES["error"])
        parts: list[str | tuple[str, str]] = [
            (icon, style), " ", (safe_name(self.call.tool), "bold")]
        # A plan's arguments are a list in JSON: its result line says more.
        if self.result is None or plan_of(self.result) is None:
            parts += ["  ", safe_name(self.call.summary)]
        if self.result is None:
            if words:
                parts += ["  ", (words, "italic $text-muted")]
            return Content.assemble(*parts)
        duration = format_duration(self.result.duration_s)
        if duration:
            parts += ["  ", (duration, "$text-muted")]
        line, more = first_line(self.result.output)
        parts += ["\n  ⎿ ", (line or "(no output)", "$text-muted")]
        if more:
            parts += [(f"  (+{more} lines)", "$text-disabled")]
        return Content.assemble(*parts)

    # ---- expanding ----------------------------------------------------------------------

    def on_click(self) -> None:
        self.action_toggle()

    def action_toggle(self) -> None:
        if self.terminal is not None and self.terminal.session.state == "running":
            self.terminal.focus()  # the terminal is the output, and it takes keys
            return
        self.expanded = not self.expanded

    def action_copy_output(self) -> None:
        self.post_message(CopyCallOutput(self.call_id))

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        if expanded:
            self._show_output()
        else:
            self._hide_output()

    def _show_output(self) -> None:
        self._hide_output()
        if self.parent is not None:
            self._output = self._output_widget()
            self.parent.mount(self._output, after=self)

    def _hide_output(self) -> None:
        if self._output is not None:
            self._output.remove()
            self._output = None

    def _output_widget(self) -> Widget:
        diff = (self.result.diff if self.result else None) or self.approval_diff
        if self.call.tool in EDIT_TOOLS and diff:
            from vibe_tui.widgets.diff_view import DiffView  # only when someone looks

            return DiffView(diff, classes="tool-call-output")
        if self.result is None:
            text = json.dumps(self.call.args, indent=2, ensure_ascii=False, default=str)
        else:
            text = self.result.output or "(no output)"
        return Static(Content(capped(safe(text))), classes="tool-call-output")

    # ---- the terminal of interactive_start ------------------------------------------------

    def _show_terminal(self, result: ev.ToolResult) -> None:
        if self.call.tool != TERMINAL_TOOL or self.terminal is not None or self.parent is None:
            return
        session = self._started_session(result)
        if session is None:
            return
        from vibe_tui.widgets.terminal_view import TerminalView  # only for a terminal

        self.terminal = TerminalView(session)
        self.parent.mount(self.terminal, after=self)

    def _started_session(self, result: ev.ToolResult) -> PtySession | None:
        agent_session = getattr(self.app, "session", None)
        command = self.call.args.get("command")
        if agent_session is None or not isinstance(command, str):
            return None
        from vibe_tui.core.terminals import started_terminal  # pyte: not at start-up

        return started_terminal(agent_session, result, command)
