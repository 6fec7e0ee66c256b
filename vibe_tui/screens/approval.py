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
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
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
from vibe_tui.widgets.diff_view import DiffView
from vibe_tui.widgets.file_list import FileList

EDIT_TOOLS = frozenset({"edit_file", "write_file"})
ACCEPT_EDITS = "accept-edits"
SPLIT_MIN_WIDTH = 140  # side by side by default from this many terminal columns
_KEY = "bold $accent"


@dataclass(frozen=True)
class ApprovalChoice:
    decision: str  # "allow" | "always" | "deny"; "" when only ``others`` are answered
    note: str | None = None
    hunks: tuple[int, ...] | None = None  # an edit's hunks to apply; None: all of them
    mode: str | None = None  # the session mode to switch to with this answer
    # The answers for the other files of a file list: (approval id, choice).
    others: tuple[tuple[str, ApprovalChoice], ...] = ()

    def answers(self, approval_id: str) -> list[tuple[str, ApprovalChoice]]:
        """Every (approval id, choice) to send, ``approval_id`` being the modal's own
        request; an answer that switches the mode goes last, so it settles nothing the
        user decided otherwise."""
        own = [(approval_id, self)] if self.decision else []
        every = [*self.others, *own]
        return sorted(every, key=lambda pair: pair[1].mode is not None)


@dataclass
class _FileReview:
    """One edit of the modal's file list, with its diff view and the user's choice."""

    request: ApprovalRequested
    view: DiffView
    choice: ApprovalChoice | None = None
    settled: str | None = None  # who answered it elsewhere

    @property
    def path(self) -> str:
        return str(self.request.args.get("path") or self.request.args.get("file_path") or "")

    @property
    def done(self) -> bool:
        return self.choice is not None or self.settled is not None


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
        # An edit's keys; the arrows win over the diff's own scrolling.
        Binding("j", "hunk(1)", "next hunk", show=False),
        Binding("k", "hunk(-1)", "previous hunk", show=False),
        Binding("down", "hunk(1)", "next hunk", show=False, priority=True),
        Binding("up", "hunk(-1)", "previous hunk", show=False, priority=True),
        Binding("space", "toggle_hunk", "keep or leave out", show=False),
        Binding("t", "toggle_split", "unified / side by side", show=False),
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
        #files { margin-top: 1; }
        &.-split #dialog { max-width: 200; }
        &.-full #dialog { max-width: 100%; height: 100%; margin: 0; }
        &.-full DiffView { height: 1fr; }
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
        self._files: list[_FileReview] = []  # an edit's files; empty for other tools
        self._current = 0
        self._final: ApprovalChoice | None = None  # decided while covered: sent on resume
        if request.tool in EDIT_TOOLS and request.diff is not None:
            self._files.append(self._review(request))

    def compose(self) -> ComposeResult:
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

    def _details_and_body(self) -> tuple[list[Widget], list[Widget]]:
        """The lines under the reason (path, other arguments), and the scrolling body."""
        request, args = self.request, self.request.args
        if self._files:
            files = FileList(id="files")
            files.display = False  # until a second file joins
            for review in self._files[1:]:  # joined before the modal was shown
                review.view.display = False
            views = [review.view for review in self._files]
            return [Static(_shown(self._files[0].path), id="path"), files], views
        if request.tool == "bash" and isinstance(args.get("command"), str):
            box = VerticalScroll(Static(_shown(args["command"], multiline=True), id="command"),
                                 id="body")
            box.add_class("command")
            box.border_title = "command"
            return _extra_args(args, skip="command"), [box]
        box = VerticalScroll(Static(_pretty_json(args), id="arguments"), id="body")
        box.add_class("arguments")
        return [], [box]

    def _review(self, request: ApprovalRequested) -> _FileReview:
        # A file that joins later takes the layout the user is looking at.
        split = self._files[self._current].view.split if self._files else False
        view = DiffView(request.diff or "", split=split, choosable=True,
                        id="body" if not self._files else None)
        view.select_hunk(0)
        return _FileReview(request, view)

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
        review = self._file(approval_id)
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
                 and self._file(request.approval_id) is None)
        if not joins:
            return False
        review = self._review(request)
        review.view.display = False
        self._files.append(review)
        if self.is_mounted:
            self.query_one("#dialog").mount(review.view)
            self._show_files()
        return True

    @property
    def diff_view(self) -> DiffView | None:
        """The diff of the file on screen; None when the request is not an edit."""
        return self._files[self._current].view if self._files else None

    def covers(self, approval_id: str) -> bool:
        """Whether this modal decides that approval (its own, or a file in its list)."""
        return approval_id == self.request.approval_id or self._file(approval_id) is not None

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
            self._decide_file(decision)
            return
        if decision == "always" and self.request.grant is None:
            return
        self._close(ApprovalChoice(decision))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # An edit's keys do nothing elsewhere: the arrows then scroll the body.
        if action in ("hunk", "toggle_hunk", "toggle_split", "toggle_full", "file"):
            return bool(self._files) and not self.noting
        return True

    def action_hunk(self, step: int) -> None:
        view = self._files[self._current].view
        view.select_hunk(view.selected_hunk + step)

    def action_toggle_hunk(self) -> None:
        if not self._ignoring_keys():
            self._files[self._current].view.toggle_hunk()

    def action_toggle_split(self) -> None:
        self._set_split(not self._files[self._current].view.split)

    def _set_split(self, split: bool) -> None:
        self.set_class(split, "-split")  # side by side wants the terminal's width
        for review in self._files:
            review.view.split = split

    def action_toggle_full(self) -> None:
        self.toggle_class("-full")

    def action_file(self, step: int) -> None:
        self._select_file((self._current + step) % len(self._files))

    @on(OptionList.OptionHighlighted, "#files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index != self._current:
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
            self._decide_file("deny")
        else:
            self._close(ApprovalChoice("deny"))

    @on(Input.Submitted, "#note")
    def _send_note(self, event: Input.Submitted) -> None:
        event.stop()
        note = event.value.strip() or None
        if self._files:
            self.noting = False
            self._record(ApprovalChoice("deny", note))
        else:
            self._close(ApprovalChoice("deny", note))

    def watch_noting(self, noting: bool) -> None:
        self.set_class(noting, "-note")
        self.query_one("#hints", Static).update(self._hints())
        if noting:
            self.query_one("#note", Input).focus()
        elif self._files:
            self.set_focus(self._files[self._current].view)
        else:
            self.set_focus(self.query_one("#body"))

    def _ignoring_keys(self) -> bool:
        return time.monotonic() - self._shown_at < self.KEY_GRACE_S

    def _close(self, choice: ApprovalChoice | None) -> None:
        # A key and a settle from another view can race: only the first one counts.
        if not self._answered:
            self._answered = True
            self.dismiss(choice)

    # -- an edit's files ---------------------------------------------------------------

    def _decide_file(self, decision: str) -> None:
        view = self._files[self._current].view
        kept = view.kept_hunks
        if decision == "deny" or not kept:
            self._record(ApprovalChoice("deny"))
            return
        hunks = None if len(kept) == view.hunk_count else tuple(kept)
        if decision == "always":  # apply, and accept every edit from now on
            for review in self._files:
                if not review.done and review is not self._files[self._current]:
                    review.choice = self._kept_choice(review.view)
            self._record(ApprovalChoice("allow", hunks=hunks, mode=ACCEPT_EDITS))
            return
        self._record(ApprovalChoice("allow", hunks=hunks))

    @staticmethod
    def _kept_choice(view: DiffView) -> ApprovalChoice:
        kept = view.kept_hunks
        if not kept:
            return ApprovalChoice("deny")
        return ApprovalChoice("allow", hunks=None if len(kept) == view.hunk_count else tuple(kept))

    def _record(self, choice: ApprovalChoice) -> None:
        self._files[self._current].choice = choice
        self._after_decision()

    def _after_decision(self) -> None:
        """Move on to the next undecided file, or close once every file is decided."""
        undecided = [i for i, review in enumerate(self._files) if not review.done]
        if not undecided:
            self._finish_files()
            return
        following = [i for i in undecided if i > self._current]
        self._select_file((following or undecided)[0])
        self._show_files()

    def _finish_files(self) -> None:
        first, *rest = self._files
        others = tuple((review.request.approval_id, review.choice)
                       for review in rest if review.choice is not None)
        if first.choice is None and not others:
            choice = None  # all settled elsewhere
        elif first.choice is None:
            choice = ApprovalChoice("", others=others)
        else:
            choice = replace(first.choice, others=others)
        if self.is_active:
            self._close(choice)
        else:
            self._final, self._settled = choice, True

    def _select_file(self, index: int) -> None:
        if index == self._current or not 0 <= index < len(self._files):
            return
        self._files[self._current].view.display = False
        self._current = index
        review = self._files[index]
        review.view.display = True
        self.query_one("#path", Static).update(_shown(review.path))
        self.query_one("#title", Static).update(self._title())
        self.query_one("#files", FileList).highlighted = index
        if not self.noting:
            self.set_focus(review.view)

    def _show_files(self) -> None:
        files = self.query_one("#files", FileList)
        files.display = len(self._files) > 1
        files.show([(review.path, _file_status(review)) for review in self._files],
                   self._current)
        self.query_one("#hints", Static).update(self._hints())
        self.query_one("#title", Static).update(self._title())

    def _file(self, approval_id: str) -> _FileReview | None:
        return next((r for r in self._files if r.request.approval_id == approval_id), None)

    # -- text -----------------------------------------------------------------------

    def _title(self) -> Content:
        if len(self._files) > 1:
            tool = self._files[self._current].request.tool
            return Content.assemble("Review ", (safe_name(tool), "bold $warning"), " · file ",
                                    f"{self._current + 1} of {len(self._files)}")
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


def _file_status(review: _FileReview) -> Content:
    if review.settled is not None:
        return Content.styled(f"answered: {review.settled}", "$text-muted")
    choice = review.choice
    if choice is None:
        return Content.styled("to review", "$text-warning")
    if choice.decision == "deny":
        return Content.styled("rejected", "$text-error")
    if choice.hunks is not None:
        return Content.styled(f"apply {len(choice.hunks)} of {review.view.hunk_count} hunks",
                              "$text-success")
    return Content.styled("apply", "$text-success")


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
