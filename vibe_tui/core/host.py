"""The narrow door the agent loop uses: what it may read of the session that runs it and
the few things it may ask of it. The Session implements it; the loop never writes session
fields (cost, grants and the like follow from the events it emits)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, TypeVar

from vibe_tui.config.settings import Config
from vibe_tui.core.approvals import AnswerOutcome, PendingApproval
from vibe_tui.core.calllog import CallLog
from vibe_tui.core.changes import ChangeRecord
from vibe_tui.core.checkpoints import Checkpoints
from vibe_tui.core.events import AnsweredBy, ApprovalDecision, Event
from vibe_tui.core.model import ModelSettings
from vibe_tui.core.state import SessionState
from vibe_tui.policy.types import Decision
from vibe_tui.policy.types import ToolRequest
from vibe_tui.tools.base import Tool, ToolContext

E = TypeVar("E", bound=Event)


class LoopHost(Protocol):
    # Settings and what the tools work on: read, never assigned by the loop.
    config: Config
    id: str  # the session's id (hooks are told it)
    workspace: Path
    interactive: bool  # False: nobody can answer an approval (headless)
    tools: dict[str, Tool]
    tool_context: ToolContext
    # Records the loop adds to: the change record, file checkpoints, the call log.
    changes: ChangeRecord
    checkpoints: Checkpoints
    call_log: CallLog

    @property
    def model(self) -> str: ...

    @property
    def state(self) -> SessionState: ...

    def emit(self, event: E, *, turn_id: int | None = None) -> E: ...

    def decide(self, request: ToolRequest, allow: tuple[str, ...] = ()) -> Decision: ...

    def ask(self, call_id: str, request: ToolRequest, grant: str | None) -> PendingApproval:
        """Open an approval; its future settles with the first answer."""
        ...

    def pending_approvals(self) -> list[PendingApproval]: ...

    def answer(self, approval_id: str, decision: ApprovalDecision, *,
               by: AnsweredBy = "user") -> AnswerOutcome: ...

    def take_steering(self) -> list[str]: ...

    def has_steering(self) -> bool: ...

    def take_compact_request(self) -> tuple[str | None] | None: ...

    def model_settings(self) -> ModelSettings: ...

    def compaction_settings(self, max_tokens: int) -> ModelSettings: ...

    async def run_subagent(self, turn_id: int, parent_call_id: str, prompt: str) -> str: ...
