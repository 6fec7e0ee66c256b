"""The approval modal: one tool call waiting for the user's yes or no.

Single keys answer it: ``y`` allow once, ``a`` always (adds the request's grant for the
session), ``n`` / ``escape`` deny, ``d`` deny with a note for the model. Everything shown
comes from the model or its tools, so it passes through ``safe()`` and is never parsed
as markup.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.highlight import highlight
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static

from vibe_tui.core.events import ApprovalRequested
from vibe_tui.safe_text import plain, safe
from vibe_tui.widgets.diff_view import DiffView

EDIT_TOOLS = frozenset({"edit_file", "write_file"})
_KEY = "bold $accent"


@dataclass(frozen=True)
class ApprovalChoice:
    decision: str  # "allow" | "always" | "deny"
    note: str | None = None


class ApprovalScreen(ModalScreen[ApprovalChoice | None]):
    """Asks whether one tool call may run. Dismisses with the choice, or None when the
    question was settled in another view (``settled_elsewhere``)."""

    KEY_GRACE_S: ClassVar[float] = 0.5
    """Keys this soon after the modal appears were typed at the prompt: ignore them."""

    # The body scrolls (arrows move long commands and diffs); answers are screen keys.
    AUTO_FOCUS = "#body"

    BINDINGS = [
        Binding("y", "answer('allow')", "allow", show=False),
        Binding("a", "answer('always')", "always", show=False),
        Binding("n", "answer('deny')", "deny", show=False),
        Binding("d", "start_note", "deny with note", show=False),
        Binding("escape", "escape", "deny", show=False),
    ]

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        #dialog {
            width: 100%;
            max-width: 110;
            height: auto;
            max-height: 100%;
            margin: 0 2;
            padding: 0 1;
            background: $surface;
            border: round $warning;
        }
        #head { dock: top; height: auto; padding-bottom: 1; }
        #foot { dock: bottom; height: auto; padding-top: 1; }
        #title-row { height: 1; }
        #title { width: 1fr; text-style: bold; }
        #position { width: auto; color: $text-muted; }
        #reason { color: $text-muted; max-height: 4; }
        #path { text-style: bold; }
        #extra { color: $text-muted; }
        #body {
            height: auto;
            max-height: 100%;
        }
        #body.command {
            border: round $primary;
            border-title-color: $text-muted;
            padding: 0 1;
        }
        #body.arguments { background: $panel; padding: 0 1; }
        #note { display: none; margin-bottom: 1; }
        &.-note #note { display: block; }
        #hints { color: $text-muted; }
    }
    """

    noting: reactive[bool] = reactive(False, init=False)
    """True while the deny-with-note input is open."""

    def __init__(self, request: ApprovalRequested, position: int = 1, total: int = 1) -> None:
        super().__init__()
        self.request = request
        self._position = (position, total)
        self._shown_at = time.monotonic()
        self._answered = False
        self._settled = False  # answered elsewhere while another screen covered this one

    def compose(self) -> ComposeResult:
        details, body = self._details_and_body()
        # Head and foot are docked so that a long body, not the keys, is what gets cut
        # (and scrolls) when the terminal is short.
        with Vertical(id="dialog"):
            with Vertical(id="head"):
                with Horizontal(id="title-row"):
                    yield Static(self._title(), id="title")
                    yield Static(self._position_text(), id="position")
                yield Static(plain(self.request.reason), id="reason")
                yield from details
            with Vertical(id="foot"):
                if self.request.grant is not None:
                    yield Static(self._grant_text(), id="grant")
                yield Input(placeholder="Why not? Enter sends, Esc goes back", id="note")
                yield Static(self._hints(), id="hints")
            yield body

    def _details_and_body(self) -> tuple[list[Widget], Widget]:
        """The lines under the reason (path, other arguments), and the scrolling body."""
        request, args = self.request, self.request.args
        if request.tool == "bash" and isinstance(args.get("command"), str):
            box = VerticalScroll(Static(plain(args["command"]), id="command"), id="body")
            box.add_class("command")
            box.border_title = "command"
            return _extra_args(args, skip="command"), box
        if request.tool in EDIT_TOOLS and request.diff is not None:
            path = str(args.get("path") or args.get("file_path") or "")
            return [Static(plain(path), id="path")], DiffView(request.diff, id="body")
        box = VerticalScroll(Static(_pretty_json(args), id="arguments"), id="body")
        box.add_class("arguments")
        return [], box

    def on_mount(self) -> None:
        self.app.bell()

    def on_screen_resume(self) -> None:
        # The grace period restarts whenever the modal comes (back) to the front.
        self._shown_at = time.monotonic()
        if self._settled:
            self._close(None)

    # -- what the app calls ---------------------------------------------------------

    def settled_elsewhere(self, by: str, decision: str) -> None:
        """The approval was answered in another view (``by``): close without an answer.

        If another screen covers this one, it closes when it comes back to the front,
        because ``dismiss`` pops whatever screen is on top."""
        self.log.info(f"approval {self.request.approval_id} settled by {by}: {decision}")
        if self.is_active:
            self._close(None)
        else:
            self._settled = True

    def set_position(self, position: int, total: int) -> None:
        """Show "``position`` of ``total``" (hidden when there is only one)."""
        self._position = (position, total)
        try:
            self.query_one("#position", Static).update(self._position_text())
        except NoMatches:
            pass  # not composed yet: compose shows the new value

    # -- keys -----------------------------------------------------------------------

    def action_answer(self, decision: str) -> None:
        if self._ignoring_keys() or self.noting:
            return
        if decision == "always" and self.request.grant is None:
            return
        self._close(ApprovalChoice(decision))

    def action_start_note(self) -> None:
        if not self._ignoring_keys():
            self.noting = True

    def action_escape(self) -> None:
        if self.noting:
            self.noting = False  # back to the keys, not a denial
        elif not self._ignoring_keys():
            self._close(ApprovalChoice("deny"))

    @on(Input.Submitted, "#note")
    def _send_note(self, event: Input.Submitted) -> None:
        event.stop()
        self._close(ApprovalChoice("deny", event.value.strip() or None))

    def watch_noting(self, noting: bool) -> None:
        self.set_class(noting, "-note")
        self.query_one("#hints", Static).update(self._hints())
        if noting:
            self.query_one("#note", Input).focus()
        else:
            self.set_focus(self.query_one("#body"))

    def _ignoring_keys(self) -> bool:
        return time.monotonic() - self._shown_at < self.KEY_GRACE_S

    def _close(self, choice: ApprovalChoice | None) -> None:
        # A key and a settle from another view can race: only the first one counts.
        if not self._answered:
            self._answered = True
            self.dismiss(choice)

    # -- text -----------------------------------------------------------------------

    def _title(self) -> Content:
        return Content.assemble("Approve ", (safe(self.request.tool), "bold $warning"), "?")

    def _position_text(self) -> str:
        position, total = self._position
        return f"{position} of {total}" if total > 1 else ""

    def _grant_text(self) -> Content:
        grant = safe(self.request.grant or "")
        return Content.assemble(
            ("a", _KEY), ": always allow ", (grant, "bold"), " for this session"
        )

    def _hints(self) -> Content:
        if self.noting:
            return Content.assemble(
                ("enter", _KEY), " deny with this note · ", ("esc", _KEY), " back"
            )
        always = [("a", _KEY), " always · "] if self.request.grant is not None else []
        return Content.assemble(
            ("y", _KEY), " allow · ", *always,
            ("n", _KEY), " deny · ",
            ("d", _KEY), " deny with note",
        )


def _extra_args(args: dict[str, Any], skip: str) -> list[Widget]:
    """One muted line for the arguments besides the main one (cwd, timeout...)."""
    extra = [
        f"{key}: {json.dumps(value, ensure_ascii=False, default=str)}"
        for key, value in args.items()
        if key != skip
    ]
    return [Static(plain(" · ".join(extra)), id="extra")] if extra else []


def _pretty_json(args: dict[str, Any]) -> Content:
    text = safe(json.dumps(args, indent=2, ensure_ascii=False, default=str))
    return highlight(text, language="json")
