"""Approvals are futures: the loop awaits one, any view resolves it, the first answer wins."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import get_args

from vibe_tui.core.events import AnsweredBy, ApprovalDecision, CoveredBy
from vibe_tui.policy.types import ToolRequest

DECISIONS: tuple[ApprovalDecision, ...] = get_args(ApprovalDecision)


@dataclass
class Answer:
    decision: ApprovalDecision
    by: AnsweredBy
    note: str | None = None
    # For an edit: the indexes of the proposed diff's hunks to apply (None: all of them).
    hunks: list[int] | None = None
    covered_by: CoveredBy | None = None  # settled by another answer's grant or mode

    @property
    def answered_by(self) -> str:
        return f"{self.by} ({self.covered_by})" if self.covered_by else self.by


@dataclass
class PendingApproval:
    approval_id: str
    call_id: str
    request: ToolRequest
    grant: str | None
    future: asyncio.Future[Answer]


@dataclass(frozen=True)
class AnswerOutcome:
    """What a view learns from answering: whether its answer counted, and the winner."""

    accepted: bool
    decision: str
    by: str
    message: str


class ApprovalBook:
    def __init__(self) -> None:
        self._pending: dict[str, PendingApproval] = {}
        self._settled: dict[str, Answer] = {}
        self._count = 0

    def open(self, call_id: str, request: ToolRequest, grant: str | None) -> PendingApproval:
        self._count += 1
        approval_id = f"ap{self._count}"
        future = asyncio.get_running_loop().create_future()
        pending = PendingApproval(approval_id, call_id, request, grant, future)
        self._pending[approval_id] = pending
        return pending

    def recorded(self, approval_id: str, answer: Answer | None = None) -> None:
        """Take in an approval from a replayed log: new ids follow the highest one there
        (views and the log tell approvals apart by id), and a late answer to a settled
        one is told who answered first."""
        self._count = max(self._count, _number(approval_id))
        if answer is not None:
            self._settled[approval_id] = answer

    def pending(self) -> list[PendingApproval]:
        return list(self._pending.values())

    def settle(self, approval_id: str, answer: Answer) -> AnswerOutcome:
        """Resolve an approval once; a late answer is told who answered first."""
        if approval_id in self._settled:
            winner = self._settled[approval_id]
            return AnswerOutcome(False, winner.decision, winner.answered_by,
                                 f"already settled: {winner.answered_by} answered "
                                 f"{winner.decision}")
        pending = self._pending.pop(approval_id, None)
        if pending is None:
            return AnswerOutcome(False, "", "", f"no approval with id {approval_id}")
        self._settled[approval_id] = answer
        if not pending.future.done():
            pending.future.set_result(answer)
        return AnswerOutcome(True, answer.decision, answer.answered_by, "done")

    def get(self, approval_id: str) -> PendingApproval | None:
        return self._pending.get(approval_id)


def _number(approval_id: str) -> int:
    match = re.fullmatch(r"ap(\d+)", approval_id)
    return int(match.group(1)) if match else 0
