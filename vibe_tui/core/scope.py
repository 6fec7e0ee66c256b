"""What one agent works with: the session's own conversation, or a sub-agent's."""

from __future__ import annotations

from dataclasses import dataclass

from vibe_tui.core.context import ContextTracker
from vibe_tui.core.history import Message
from vibe_tui.tools.base import Tool, ToolContext


@dataclass
class Scope:
    messages: list[Message]
    tools: dict[str, Tool]
    tool_context: ToolContext
    system_prompt: str
    context: ContextTracker
    max_steps: int
    parent_call_id: str | None = None  # set for a sub-agent: the task call it works for

    @property
    def nested(self) -> bool:
        return self.parent_call_id is not None
