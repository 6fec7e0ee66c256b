"""The Changes screen (``/diff``, Ctrl+D): every file the agent changed in this session,
with its cumulative diff against the session start, and reverts.

The file list is on the left (arrows move through it), the diff of the current file on
the right (``j``/``k`` move between its hunks, ``t`` switches unified / side by side).
``r`` reverts the current hunk and ``R`` the whole file, each after a confirmation; the
session tells the model at its next step. In a git repository the header shows
``git diff --stat`` of the working tree. Files changed outside the agent since it last
wrote them are flagged, and the confirmation says so.
"""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static

from vibe_tui.core.changes import ChangedFile, ChangeError, git_diff_stat
from vibe_tui.core.session import Session
from vibe_tui.safe_text import plain, safe_name
from vibe_tui.screens.diff_review import DIFF_REVIEW_BINDINGS, SPLIT_MIN_WIDTH, DiffReviewKeys
from vibe_tui.widgets.diff_view import DiffView
from vibe_tui.widgets.file_list import FileList

_KEY = "bold $accent"
NOTHING_CHANGED = "No file has been changed by the agent in this session."
OUTSIDE = "changed outside the agent"


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: ``y`` yes, ``n`` or Esc no."""

    BINDINGS = [
        Binding("y", "dismiss(True)", "yes", show=False),
        Binding("n", "dismiss(False)", "no", show=False),
        Binding("escape", "dismiss(False)", "no", show=False),
    ]

    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
        #question {
            width: auto;
            max-width: 80;
            height: auto;
            padding: 1 2;
            background: $surface;
            border: round $warning;
        }
    }
    """

    def __init__(self, question: Content) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static(Content.assemble(self.question, "\n\n", ("y", _KEY), " yes · ",
                                      ("n", _KEY), " no"), id="question")


class ChangesScreen(DiffReviewKeys, Screen[None]):
    """What this session changed, file by file; revert a hunk or a file."""

    AUTO_FOCUS = "#files"

    BINDINGS = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
        *DIFF_REVIEW_BINDINGS,
        Binding("r", "revert_hunk", "revert hunk", show=False),
        Binding("R", "revert_file", "revert file", show=False),
    ]

    DEFAULT_CSS = """
    ChangesScreen {
        #changes-head { height: auto; padding: 0 1; background: $panel; }
        #changes-title { text-style: bold; }
        #stat { color: $text-muted; max-height: 8; }
        #changes-body { height: 1fr; }
        #files { width: 40; max-height: 100%; height: 1fr; border-right: vkey $panel; }
        #diff-pane { width: 1fr; }
        #diff-pane DiffView { height: 1fr; }
        #empty { padding: 1 2; color: $text-muted; }
        #changes-hints { height: auto; padding: 0 1; color: $text-muted; }
    }
    """

    loaded: reactive[bool] = reactive(False, init=False)
    """False while the files and the stat are being read."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.files: list[ChangedFile] = []
        self._current = 0
        self._split = False

    def compose(self) -> ComposeResult:
        with Vertical(id="changes-head"):
            yield Static("Changes in this session", id="changes-title")
            yield Static("", id="stat")
        with Horizontal(id="changes-body"):
            yield FileList(id="files")
            yield Vertical(id="diff-pane")
        yield Static(_hints(), id="changes-hints")

    def on_mount(self) -> None:
        self._split = self.app.size.width >= SPLIT_MIN_WIDTH
        self.reload()

    # -- loading ----------------------------------------------------------------------

    @work(exclusive=True, group="changes-load")
    async def reload(self) -> None:
        """Read every changed file and the git stat again (after a revert, say)."""
        self.loaded = False
        files, stat = await asyncio.gather(asyncio.to_thread(self.session.changes.files),
                                           git_diff_stat(self.session.workspace))
        self.files = files
        self._current = min(self._current, max(len(files) - 1, 0))
        self._show_stat(stat)
        self.query_one("#files", FileList).show(
            [(f.rel, _file_status(f)) for f in files], self._current)
        await self._show_diff()
        self.loaded = True

    def _show_stat(self, stat: str | None) -> None:
        if stat is None:
            text = "not a git repository: diffs are against the session start"
        else:
            text = f"git diff --stat\n{stat}" if stat else "git: no uncommitted changes"
        self.query_one("#stat", Static).update(plain(text))

    async def _show_diff(self) -> None:
        pane = self.query_one("#diff-pane", Vertical)
        await pane.remove_children()
        current = self.current
        if current is None:
            await pane.mount(Static(NOTHING_CHANGED, id="empty"))
            return
        if current.binary:
            await pane.mount(Static(plain(f"{safe_name(current.rel)}: binary file changed; "
                                          "R reverts it whole"), id="empty"))
            return
        view = DiffView(current.diff, split=self._split)
        await pane.mount(view)
        view.select_hunk(0)

    # -- state ------------------------------------------------------------------------

    @property
    def current(self) -> ChangedFile | None:
        return self.files[self._current] if self.files else None

    @property
    def diff_view(self) -> DiffView | None:
        views = self.query("#diff-pane DiffView")
        return views.first(DiffView) if views else None

    @on(OptionList.OptionHighlighted, "#files")
    async def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.loaded and event.option_index != self._current:
            self._current = event.option_index
            await self._show_diff()

    # -- keys -------------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_split(self) -> None:
        self._split = not self._split
        if (view := self.diff_view) is not None:
            view.split = self._split

    def action_revert_hunk(self) -> None:
        current, view = self.current, self.diff_view
        if current is None or view is None or view.selected_hunk < 0 or not self.loaded:
            return
        hunk = view.selected_hunk
        question = Content.assemble(
            "Revert hunk ", (f"{hunk + 1} of {len(current.hunks)}", "bold"), " in ",
            (safe_name(current.rel), "bold"), "?", _outside_warning(current))
        self._confirm_then_revert(question, current.rel, hunk)

    def action_revert_file(self) -> None:
        current = self.current
        if current is None or not self.loaded:
            return
        what = ("delete it (this session created it)" if current.created
                else "restore its content at the session start")
        question = Content.assemble(
            "Revert every change to ", (safe_name(current.rel), "bold"), ": ", what, "?",
            _outside_warning(current))
        self._confirm_then_revert(question, current.rel, None)

    @work(group="changes-revert")
    async def _confirm_then_revert(self, question: Content, rel: str, hunk: int | None) -> None:
        if not await self.app.push_screen_wait(ConfirmScreen(question)):
            return
        try:
            done = await self.session.revert(rel, hunk)
        except ChangeError as error:
            self.notify(str(error), severity="error")
        else:
            self.notify(done, timeout=3)
        self.reload()


def _file_status(changed: ChangedFile) -> Content:
    parts: list[Content | tuple[str, str] | str] = []
    if changed.created:
        parts.append(("new ", "$text-warning"))
    elif changed.deleted:
        parts.append(("deleted ", "$text-warning"))
    if changed.binary:
        parts.append(("binary", "$text-muted"))
    else:
        parts += [(f"+{changed.added}", "$text-success"), " ", (f"-{changed.removed}", "$text-error")]
    if changed.changed_outside:
        parts.append((f"  ⚠ {OUTSIDE}", "$text-warning"))
    return Content.assemble(*parts)


def _outside_warning(changed: ChangedFile) -> Content:
    if not changed.changed_outside:
        return Content("")
    return Content.styled(f"\nThe file was {OUTSIDE} since it last wrote it: those changes "
                          "are kept where they do not overlap the revert.", "$text-warning")


def _hints() -> Content:
    return Content.assemble(
        ("↑/↓", _KEY), " file · ", ("j/k", _KEY), " hunk · ", ("r", _KEY), " revert hunk · ",
        ("R", _KEY), " revert file · ", ("t", _KEY), " unified/side by side · ",
        ("esc", _KEY), " close")
