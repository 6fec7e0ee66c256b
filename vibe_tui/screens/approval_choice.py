"""What the approval modal answers, and the bookkeeping of an edit's file list.

An approval modal that reviews edits may hold several files (each its own approval);
``FileReviews`` keeps which one is on screen and what was decided for each, and turns
the decisions into the one ``ApprovalChoice`` the modal dismisses with. Drawing them is
the modal's part (``screens/approval.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.content import Content

from vibe_tui.core.events import ApprovalRequested
from vibe_tui.widgets.diff_view import DiffView

ACCEPT_EDITS = "accept-edits"


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
class FileReview:
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

    def status(self) -> Content:
        """One line for the file list: what is decided for this file."""
        if self.settled is not None:
            return Content.styled(f"answered: {self.settled}", "$text-muted")
        choice = self.choice
        if choice is None:
            return Content.styled("to review", "$text-warning")
        if choice.decision == "deny":
            return Content.styled("rejected", "$text-error")
        if choice.hunks is not None:
            return Content.styled(f"apply {len(choice.hunks)} of {self.view.hunk_count} hunks",
                                  "$text-success")
        return Content.styled("apply", "$text-success")


class FileReviews:
    """An edit's files on one modal: the first is the modal's own request."""

    def __init__(self) -> None:
        self.files: list[FileReview] = []
        self.current = 0  # index of the file on screen

    def __bool__(self) -> bool:
        return bool(self.files)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def on_screen(self) -> FileReview:
        return self.files[self.current]

    def add(self, review: FileReview) -> None:
        self.files.append(review)

    def find(self, approval_id: str) -> FileReview | None:
        return next((r for r in self.files if r.request.approval_id == approval_id), None)

    def decide(self, decision: str) -> None:
        """The user's key on the file on screen: its kept hunks applied, or denied."""
        view = self.on_screen.view
        kept = view.kept_hunks
        if decision == "deny" or not kept:
            self.record(ApprovalChoice("deny"))
            return
        hunks = None if len(kept) == view.hunk_count else tuple(kept)
        if decision == "always":  # apply, and accept every edit from now on
            for review in self.files:
                if not review.done and review is not self.on_screen:
                    review.choice = kept_choice(review.view)
            self.record(ApprovalChoice("allow", hunks=hunks, mode=ACCEPT_EDITS))
            return
        self.record(ApprovalChoice("allow", hunks=hunks))

    def record(self, choice: ApprovalChoice) -> None:
        self.on_screen.choice = choice

    def next_undecided(self) -> int | None:
        """The next file to decide after the one on screen (wrapping round), or None
        once every file is decided."""
        undecided = [i for i, review in enumerate(self.files) if not review.done]
        if not undecided:
            return None
        following = [i for i in undecided if i > self.current]
        return (following or undecided)[0]

    def final_choice(self) -> ApprovalChoice | None:
        """Every file's decision as the modal's one answer; None when all were settled
        elsewhere."""
        first, *rest = self.files
        others = tuple((review.request.approval_id, review.choice)
                       for review in rest if review.choice is not None)
        if first.choice is None and not others:
            return None
        if first.choice is None:
            return ApprovalChoice("", others=others)
        return replace(first.choice, others=others)


def kept_choice(view: DiffView) -> ApprovalChoice:
    """Apply what the view keeps: every hunk (None), some of them, or none (deny)."""
    kept = view.kept_hunks
    if not kept:
        return ApprovalChoice("deny")
    return ApprovalChoice("allow", hunks=None if len(kept) == view.hunk_count else tuple(kept))
