"""The policy's vocabulary: modes, decisions, and what a decision is made from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Mode = Literal["default", "accept-edits", "plan", "yolo"]
MODES: tuple[Mode, ...] = ("default", "accept-edits", "plan", "yolo")
Action = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str
    # The rule an "always" answer would grant for the session, e.g. "Bash(npm test:*)"
    # or "Edit" ; None when an "always" grant makes no sense (deny, or never-grantable asks).
    grant: str | None = None


@dataclass
class PolicyContext:
    mode: Mode
    workspace: Path
    allow: list[str] = field(default_factory=list)  # rules, Claude Code syntax
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    grants: set[str] = field(default_factory=set)  # "always" answers of this session
