"""What one agent works with: the session's own conversation, or a sub-agent's."""

from __future__ import annotations

from dataclasses import dataclass, field

from vibe_tui.core.context import ContextTracker
from vibe_tui.core.history import Message
from vibe_tui.tools.base import Tool, ToolContext


@dataclass(frozen=True)
class TurnOptions:
    """What one turn may do beyond the session's settings (a custom command's front
    matter): rules allowed without asking for this turn only, and another model."""

    allow: tuple[str, ...] = ()
    model: str | None = None


@dataclass
class Scope:
    messages: list[Message]
    tools: dict[str, Tool]
    tool_context: ToolContext
    system_prompt: str
    context: ContextTracker
    max_steps: int
    parent_call_id: str | None = None  # set for a sub-agent: the task call it works for
    options: TurnOptions = field(default_factory=TurnOptions)

    @property
    def nested(self) -> bool:
        return self.parent_call_id is not None
