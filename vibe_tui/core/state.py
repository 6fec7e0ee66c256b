"""What a session is, derived from its events: one ``apply`` used live and on resume.

The live session passes every event it emits through ``SessionState.apply``; ``--resume``
passes every event of the log through the same function, so cost, mode, model, grants and
open approvals come out the same both ways.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vibe_tui.core import events as ev
from vibe_tui.policy.types import MODES, Mode


@dataclass
class SessionState:
    mode: Mode = "default"
    model: str = ""
    cost: float = 0.0  # dollars, as far as LiteLLM knows the prices
    tokens: int = 0
    # Rules "always" answers added; they last for the session, resumed or not.
    grants: set[str] = field(default_factory=set)
    # Asked and not yet answered, by approval id.
    open_approvals: dict[str, ev.ApprovalRequested] = field(default_factory=dict)
    context_usage: ev.ContextUsage | None = None  # the latest, for a status bar

    def apply(self, event: ev.Event) -> None:
        if isinstance(event, (ev.SessionStarted, ev.ModeChanged)):
            if event.mode in MODES:
                self.mode = event.mode
        if isinstance(event, (ev.SessionStarted, ev.ModelChanged)):
            self.model = event.model or self.model
        elif isinstance(event, ev.Usage):
            self.cost = event.session_cost
            self.tokens = event.session_tokens
        elif isinstance(event, ev.ContextUsage):
            self.context_usage = event
        elif isinstance(event, ev.ApprovalRequested):
            self.open_approvals[event.approval_id] = event
        elif isinstance(event, ev.ApprovalResolved):
            self._resolved(event)

    def _resolved(self, event: ev.ApprovalResolved) -> None:
        asked = self.open_approvals.pop(event.approval_id, None)
        if asked is not None and asked.grant and event.decision == "always":
            self.grants.add(asked.grant)
