"""Ctrl+R: search the prompts sent in this session and this workspace's earlier ones.

Type to filter (every word must appear, in any case); Up/Down or Ctrl+R again move through
the matches, newest first; Enter puts the chosen prompt in the prompt box, unsent, to be
read and edited; Esc closes and changes nothing. The saved sessions are read in a thread:
this session's prompts show at once, the older ones a moment later.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from vibe_tui.core.past_prompts import workspace_prompts
from vibe_tui.safe_text import safe

LINE_CHARS = 110
MAX_SHOWN = 200  # an OptionList lays out every option: the newest matches are plenty
NO_MATCH = "no past prompt matches"
HELP = "type to filter · ↑/↓ or Ctrl+R move · Enter puts it in the prompt · Esc cancels"


def matches(prompts: list[str], query: str) -> list[str]:
    """The prompts holding every word of ``query``, in their order."""
    words = query.lower().split()
    return [p for p in prompts if all(word in p.lower() for word in words)]


def one_line(prompt: str) -> Content:
    line = safe(" ".join(prompt.split()))
    return Content(line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…")


class HistorySearch(ModalScreen[str | None]):
    DEFAULT_CSS = """
    HistorySearch {
        align: center bottom;
        & > Vertical {
            width: 100%;
            height: 60%;
            border: round $primary;
            background: $surface;
            padding: 0 1;
        }
        & Input, & Input:focus { border: none; height: 1; padding: 0; }
        & OptionList { height: 1fr; border: none; }
        & #history-status { color: $text-muted; }
    }
    """
    AUTO_FOCUS = "#history-query"  # the app's own names the prompt, absent here
    BINDINGS = [
        Binding("escape", "dismiss_none", "cancel", show=False),
        Binding("ctrl+r,down", "move(1)", "older", show=False, priority=True),
        Binding("up", "move(-1)", "newer", show=False, priority=True),
    ]

    def __init__(self, workspace: Path, recent: list[str]) -> None:
        super().__init__()
        self.workspace = workspace
        # This session's prompts, newest first; the saved sessions' follow once read.
        self.prompts = list(dict.fromkeys(reversed(recent)))
        self._shown: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(placeholder="search past prompts", id="history-query")
            yield OptionList(id="history-matches")
            yield Label(HELP, id="history-status")

    def on_mount(self) -> None:
        self._refilter()
        self._read_saved_sessions()

    @work(exclusive=True, exit_on_error=False)
    async def _read_saved_sessions(self) -> None:
        saved = await asyncio.to_thread(workspace_prompts, self.workspace)
        self.prompts = list(dict.fromkeys([*self.prompts, *saved]))
        self._refilter()

    @on(Input.Changed)
    def _refilter(self) -> None:
        options = self.query_one(OptionList)
        self._shown = matches(self.prompts, self.query_one(Input).value)[:MAX_SHOWN]
        options.set_options(Option(one_line(prompt)) for prompt in self._shown)
        if self._shown:
            options.highlighted = 0
        self.query_one(Label).update(HELP if self._shown else NO_MATCH)

    def shown_prompts(self) -> list[str]:
        return list(self._shown)

    def status_text(self) -> str:
        return str(self.query_one(Label).content)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if self._shown:
            current = options.highlighted or 0
            options.highlighted = max(0, min(len(self._shown) - 1, current + step))

    @on(Input.Submitted)
    @on(OptionList.OptionSelected)
    def _choose(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if self._shown and highlighted is not None:
            self.dismiss(self._shown[highlighted])

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
