"""The ``/resume`` picker: this workspace's saved sessions, newest first.

Enter opens the highlighted one, Esc closes the picker; the listing is read in a thread
because a workspace may hold many long session files.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from vibe_tui.core.store import SessionSummary, session_summaries
from vibe_tui.safe_text import safe

PROMPT_CHARS = 70


def when(epoch: float, now: float | None = None) -> str:
    """How long ago, in the unit a person would use."""
    seconds = max(0.0, (now or time.time()) - epoch)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size:.0f} {unit} ago"
    return "just now"


def summary_line(summary: SessionSummary, current: bool) -> Content:
    prompt = safe(summary.first_prompt.replace("\n", " ").strip()) or "(no prompt yet)"
    if len(prompt) > PROMPT_CHARS:
        prompt = prompt[:PROMPT_CHARS - 1] + "…"
    turns = f"{summary.turns} turn" + ("" if summary.turns == 1 else "s")
    return Content.assemble(
        (f"{when(summary.updated):>11}  ", "$text-muted"), (prompt, "bold"),
        (f"  {turns} · {summary.model or 'no model'}", "$text-muted"),
        (" · this session" if current else "", "$accent"))


class SessionPicker(ModalScreen[Path | None]):
    DEFAULT_CSS = """
    SessionPicker {
        align: center middle;
        & > Vertical {
            width: 90%;
            max-width: 130;
            height: 70%;
            border: round $primary;
            background: $surface;
            padding: 0 1;
        }
        & OptionList { height: 1fr; border: none; }
        & #picker-help { color: $text-muted; }
    }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "close")]

    def __init__(self, workspace: Path, current: str | None = None) -> None:
        super().__init__()
        self.workspace = workspace
        self.current = current
        self.summaries: list[SessionSummary] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Resume a session of this workspace", id="picker-title")
            yield OptionList(id="sessions")
            yield Label("Enter open · Esc close", id="picker-help")

    def on_mount(self) -> None:
        self.query_one(OptionList).loading = True
        self._load()

    @work(exclusive=True, exit_on_error=False)
    async def _load(self) -> None:
        self.summaries = await asyncio.to_thread(session_summaries, self.workspace)
        options = self.query_one(OptionList)
        options.loading = False
        if not self.summaries:
            options.add_option(Option("no saved sessions for this workspace", disabled=True))
            return
        options.add_options(Option(summary_line(s, s.id == self.current), id=s.id)
                            for s in self.summaries)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = next((s for s in self.summaries if s.id == event.option.id), None)
        if chosen is not None:
            self.dismiss(chosen.path)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
