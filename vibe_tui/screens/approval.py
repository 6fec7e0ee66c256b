"""The approval modal: one tool call waiting for the user's yes or no.

Single keys answer it: ``y`` allow once, ``a`` always (adds the request's grant for the
session), ``n`` / ``escape`` deny, ``d`` deny with a note for the model. Everything shown
comes from the model or its tools, so it is never parsed as markup, and what the user
decides on (tool, path, command, rule, arguments) passes through ``safe_name()``: an escape
sequence in a file name shows, inert, rather than vanishing into another name.

An edit is reviewed hunk by hunk: ``j``/``k`` (or the arrows) move between hunks, space
leaves the current hunk out or takes it back, ``y`` applies the hunks kept, ``a`` applies
them and accepts edits for the rest of the session, ``t`` switches unified / side by
side, ``f`` full screen. Edits that arrive while one is on screen (several in one model
response) join it as a file list (``add_file``); each file is decided on its own, Tab
moves between them, and the modal closes once every file is decided.

A short one-line command is a compact box sized to its content over the conversation
(title, reason, the command, the keys); long or multi-line commands, edits and other
tools get the full dialog, whose body scrolls.
"""

from __future__ import annotations

import json
import time
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
from textual.widgets import Input, OptionList, Static

from vibe_tui.core.events import ApprovalRequested
from vibe_tui.safe_text import safe_name
from vibe_tui.screens.approval_choice import ApprovalChoice, FileReview, FileReviews
from vibe_tui.screens.diff_review import DIFF_REVIEW_BINDINGS, SPLIT_MIN_WIDTH, DiffReviewKeys
from vibe_tui.widgets.diff_view import DiffView
from vibe_tui.widgets.file_list import FileList
from vibe_tui.widgets.tool_kinds import EDIT_TOOLS

_KEY = "bold $accent"
COMPACT_MAX_CHARS = 240  # a command longer than this reads better in the scrolling dialog


class ApprovalScreen(DiffReviewKeys, ModalScreen[ApprovalChoice | None]):
    """Asks whether one tool call may run. Dismisses with the choice, or None when the
    question was settled in another view (``settled_elsewhere``)."""

    KEY_GRACE_S: ClassVar[float] = 0.5
    """Keys this soon after the modal appears were typed at the prompt: ignore them."""

    # The body scrolls (arrows move long commands and diffs); answers are screen keys.
    # Not "#body": the app's stylesheet stretches its own #body to the screen's height.
    AUTO_FOCUS = "#approval-body"

    BINDINGS = [
        Binding("y", "answer('allow')", "allow", show=False),
        Binding("a", "answer('always')", "always", show=False),
        Binding("n", "answer('deny')", "deny", show=False),
        Binding("d", "start_note", "deny with note", show=False),
        Binding("escape", "escape", "deny", show=False),
        # An edit's keys; the arrows win over the diff's own scrolling.
        *DIFF_REVIEW_BINDINGS,
        Binding("down", "hunk(1)", "next hunk", show=False, priority=True),
        Binding("up", "hunk(-1)", "previous hunk", show=False, priority=True),
        Binding("space", "toggle_hunk", "keep or leave out", show=False),
        Binding("f", "toggle_full", "full screen", show=False),
        Binding("tab", "file(1)", "next file", show=False),
        Binding("shift+tab", "file(-1)", "previous file", show=False),
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
        #approval-body {
            height: auto;
            max-height: 100%;
        }
        #approval-body.command {
            border: round $primary;
            border-title-color: $text-muted;
            padding: 0 1;
        }
        #approval-body.arguments { background: $panel; padding: 0 1; }
        #note { display: none; margin-bottom: 1; }
        &.-note #note { display: block; }
        #hints { color: $text-muted; }
        #files { margin-top: 1; }
        &.-split #dialog { max-width: 200; }
        &.-full #dialog { max-width: 100%; height: 100%; margin: 0; }
        &.-full DiffView { height: 1fr; }
        &.-compact {
            #dialog { width: auto; min-width: 60; max-width: 100; }
            #title-row, #title, #grant, #hints { width: auto; }
            #position { margin-left: 2; }
            #grant { margin-top: 1; }
            #command {
                width: 100%;
                margin-top: 1;
                padding: 0 1;
                border: round $primary;
                border-title-color: $text-muted;
            }
        }
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
        self._files = FileReviews()  # an edit's files; empty for other tools
        self._final: ApprovalChoice | None = None  # decided while covered: sent on resume
        if request.tool in EDIT_TOOLS and request.diff is not None:
            self._files.add(self._review(request))
        self.compact = _is_short_command(request)
        self.set_class(self.compact, "-compact")

    def compose(self) -> ComposeResult:
        if self.compact:
            yield from self._compose_compact()
            return
        details, body = self._details_and_body()
        # Head and foot are docked so that a long body, not the keys, is what gets cut
        # (and scrolls) when the terminal is short.
        with Vertical(id="dialog"):
            with Vertical(id="head"):
                with Horizontal(id="title-row"):
                    yield Static(self._title(), id="title")
                    yield Static(self._position_text(), id="position")
                yield Static(_shown(self.request.reason, multiline=True), id="reason")
                yield from details
            with Vertical(id="foot"):
                if self.request.grant is not None and not self._files:
                    yield Static(self._grant_text(), id="grant")
                yield Input(placeholder="Why not? Enter sends, Esc goes back", id="note")
                yield Static(self._hints(), id="hints")
            yield from body

    def _compose_compact(self) -> ComposeResult:
        """Everything in one column sized to its content; nothing to scroll or focus,
        so every key goes to the screen's bindings."""
        args = self.request.args
        with Vertical(id="dialog"):
            with Horizontal(id="title-row"):
                yield Static(self._title(), id="title")
                yield Static(self._position_text(), id="position")
            yield Static(_shown(self.request.reason, multiline=True), id="reason")
            command = Static(_shown(args["command"]), id="command")
            command.border_title = "command"
            yield command
            yield from _extra_args(args, skip="command")
            if self.request.grant is not None:
                yield Static(self._grant_text(), id="grant")
            yield Input(placeholder="Why not? Enter sends, Esc goes back", id="note")
            yield Static(self._hints(), id="hints")

    def _details_and_body(self) -> tuple[list[Widget], list[Widget]]:
        """The lines under the reason (path, other arguments), and the scrolling body."""
        request, args = self.request, self.request.args
        if self._files:
            files = FileList(id="files")
            files.display = False  # until a second file joins
            for review in self._files.files[1:]:  # joined before the modal was shown
                review.view.display = False
            views = [review.view for review in self._files.files]
            return [Static(_shown(self._files.files[0].path), id="path"), files], views
        if request.tool == "bash" and isinstance(args.get("command"), str):
            box = VerticalScroll(Static(_shown(args["command"], multiline=True), id="command"),
                                 id="approval-body")
            box.add_class("command")
            box.border_title = "command"
            return _extra_args(args, skip="command"), [box]
        box = VerticalScroll(Static(_pretty_json(args), id="arguments"),
                             id="approval-body")
        box.add_class("arguments")
        return [], [box]

    def _review(self, request: ApprovalRequested) -> FileReview:
        # A file that joins later takes the layout the user is looking at.
        split = self._files.on_screen.view.split if self._files else False
        view = DiffView(request.diff or "", split=split, choosable=True,
                        id="approval-body" if not self._files else None)
        view.select_hunk(0)
        return FileReview(request, view)

    def on_mount(self) -> None:
        self.app.bell()
        if self._files:
            self._set_split(self.app.size.width >= SPLIT_MIN_WIDTH)
        if len(self._files) > 1:
            self._show_files()

    def on_screen_resume(self) -> None:
        # The grace period restarts whenever the modal comes (back) to the front.
        self._shown_at = time.monotonic()
        if self._settled:
            self._close(self._final)

    # -- what the app calls ---------------------------------------------------------

    def settled_elsewhere(self, by: str, decision: str, approval_id: str | None = None) -> None:
        """The approval (or the file ``approval_id`` of the file list) was answered in
        another view (``by``): close without an answer once nothing is left to decide.

        If another screen covers this one, it closes when it comes back to the front,
        because ``dismiss`` pops whatever screen is on top."""
        approval_id = approval_id or self.request.approval_id
        self.log.info(f"approval {approval_id} settled by {by}: {decision}")
        review = self._files.find(approval_id)
        if review is not None and len(self._files) > 1:
            review.settled = f"{decision} in {by}"
            self._after_decision()
            return
        if self.is_active:
            self._close(None)
        else:
            self._settled = True

    def add_file(self, request: ApprovalRequested) -> bool:
        """Take another edit of the same model response into the file list; False when
        this modal does not review edits (the caller queues it instead)."""
        joins = (bool(self._files) and not self._answered and request.tool in EDIT_TOOLS
                 and request.diff is not None and request.turn_id == self.request.turn_id
                 and self._files.find(request.approval_id) is None)
        if not joins:
            return False
        review = self._review(request)
        review.view.display = False
        self._files.add(review)
        if self.is_mounted:
            self.query_one("#dialog").mount(review.view)
            self._show_files()
        return True

    @property
    def diff_view(self) -> DiffView | None:
        """The diff of the file on screen; None when the request is not an edit."""
        return self._files.on_screen.view if self._files else None

    def covers(self, approval_id: str) -> bool:
        """Whether this modal decides that approval (its own, or a file in its list)."""
        return (approval_id == self.request.approval_id
                or self._files.find(approval_id) is not None)

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
        if self._files:
            self._files.decide(decision)
            self._after_decision()
            return
        if decision == "always" and self.request.grant is None:
            return
        self._close(ApprovalChoice(decision))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # An edit's keys do nothing elsewhere: the arrows then scroll the body.
        if action in ("hunk", "toggle_hunk", "toggle_split", "toggle_full", "file"):
            return bool(self._files) and not self.noting
        return True

    def action_toggle_hunk(self) -> None:
        if not self._ignoring_keys():
            self._files.on_screen.view.toggle_hunk()

    def action_toggle_split(self) -> None:
        self._set_split(not self._files.on_screen.view.split)

    def _set_split(self, split: bool) -> None:
        self.set_class(split, "-split")  # side by side wants the terminal's width
        for review in self._files.files:
            review.view.split = split

    def action_toggle_full(self) -> None:
        self.toggle_class("-full")

    def action_file(self, step: int) -> None:
        self._select_file((self._files.current + step) % len(self._files))

    @on(OptionList.OptionHighlighted, "#files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index != self._files.current:
            self._select_file(event.option_index)

    def action_start_note(self) -> None:
        if not self._ignoring_keys():
            self.noting = True

    def action_escape(self) -> None:
        if self.noting:
            self.noting = False  # back to the keys, not a denial
        elif self._ignoring_keys():
            return
        elif self._files:
            self._files.decide("deny")
            self._after_decision()
        else:
            self._close(ApprovalChoice("deny"))

    @on(Input.Submitted, "#note")
    def _send_note(self, event: Input.Submitted) -> None:
        event.stop()
        note = event.value.strip() or None
        if self._files:
            self.noting = False
            self._files.record(ApprovalChoice("deny", note))
            self._after_decision()
        else:
            self._close(ApprovalChoice("deny", note))

    def watch_noting(self, noting: bool) -> None:
        self.set_class(noting, "-note")
        self.query_one("#hints", Static).update(self._hints())
        if noting:
            self.query_one("#note", Input).focus()
        elif self._files:
            self.set_focus(self._files.on_screen.view)
        else:
            self.set_focus(None if self.compact else self.query_one("#approval-body"))

    def _ignoring_keys(self) -> bool:
        return time.monotonic() - self._shown_at < self.KEY_GRACE_S

    def _close(self, choice: ApprovalChoice | None) -> None:
        # A key and a settle from another view can race: only the first one counts.
        if not self._answered:
            self._answered = True
            self.dismiss(choice)

    # -- an edit's files ---------------------------------------------------------------

    def _after_decision(self) -> None:
        """Move on to the next undecided file, or close once every file is decided."""
        following = self._files.next_undecided()
        if following is not None:
            self._select_file(following)
            self._show_files()
            return
        choice = self._files.final_choice()
        if self.is_active:
            self._close(choice)
        else:
            self._final, self._settled = choice, True

    def _select_file(self, index: int) -> None:
        if index == self._files.current or not 0 <= index < len(self._files):
            return
        self._files.on_screen.view.display = False
        self._files.current = index
        review = self._files.on_screen
        review.view.display = True
        self.query_one("#path", Static).update(_shown(review.path))
        self.query_one("#title", Static).update(self._title())
        self.query_one("#files", FileList).highlighted = index
        if not self.noting:
            self.set_focus(review.view)

    def _show_files(self) -> None:
        files = self.query_one("#files", FileList)
        files.display = len(self._files) > 1
        files.show([(review.path, review.status()) for review in self._files.files],
                   self._files.current)
        self.query_one("#hints", Static).update(self._hints())
        self.query_one("#title", Static).update(self._title())

    # -- text -----------------------------------------------------------------------

    def _title(self) -> Content:
        if len(self._files) > 1:
            tool = self._files.on_screen.request.tool
            return Content.assemble("Review ", (safe_name(tool), "bold $warning"), " · file ",
                                    f"{self._files.current + 1} of {len(self._files)}")
        return Content.assemble("Approve ", (safe_name(self.request.tool), "bold $warning"), "?")

    def _position_text(self) -> str:
        position, total = self._position
        return f"{position} of {total}" if total > 1 else ""

    def _grant_text(self) -> Content:
        grant = safe_name(self.request.grant or "")
        return Content.assemble(
            ("a", _KEY), ": always allow ", (grant, "bold"), " for this session"
        )

    def _hints(self) -> Content:
        if self.noting:
            return Content.assemble(
                ("enter", _KEY), " deny with this note · ", ("esc", _KEY), " back"
            )
        if self._files:
            return self._edit_hints()
        always = [("a", _KEY), " always · "] if self.request.grant is not None else []
        return Content.assemble(
            ("y", _KEY), " allow · ", *always,
            ("n", _KEY), " deny · ",
            ("d", _KEY), " deny with note",
        )

    def _edit_hints(self) -> Content:
        files = [("tab", _KEY), " next file · "] if len(self._files) > 1 else []
        return Content.assemble(
            ("y", _KEY), " apply kept · ", ("a", _KEY), " apply + accept edits · ",
            ("n", _KEY), " reject · ", ("d", _KEY), " reject with note\n",
            ("j/k", _KEY), " hunk · ", ("space", _KEY), " keep/leave out · ", *files,
            ("t", _KEY), " side by side · ", ("f", _KEY), " full screen",
        )


def _is_short_command(request: ApprovalRequested) -> bool:
    command = request.args.get("command") if request.tool == "bash" else None
    return (isinstance(command, str) and "\n" not in command.strip()
            and len(command) <= COMPACT_MAX_CHARS)


def _extra_args(args: dict[str, Any], skip: str) -> list[Widget]:
    """One muted line for the arguments besides the main one (cwd, timeout...)."""
    extra = [
        f"{key}: {json.dumps(value, ensure_ascii=False, default=str)}"
        for key, value in args.items()
        if key != skip
    ]
    return [Static(_shown(" · ".join(extra)), id="extra")] if extra else []


def _pretty_json(args: dict[str, Any]) -> Content:
    text = safe_name(json.dumps(args, indent=2, ensure_ascii=False, default=str), multiline=True)
    return highlight(text, language="json")


def _shown(text: str, multiline: bool = False) -> Content:
    return Content(safe_name(text, multiline=multiline))
