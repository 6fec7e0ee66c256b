"""The ``task`` tool: hand a question to a read-only sub-agent and get its report back.

The sub-agent itself lives in the core (it needs the session and the model); the tools
layer must not import the core, so the agent loop hands the tool a runner for the call
it is running through ``current_runner``, a context variable that each concurrently
running call sees on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from vibe_tui.policy.types import ToolKind, ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput, require

# Runs a sub-agent on a prompt; returns its final report. Raises ToolError when it fails.
SubagentRunner = Callable[[str], Awaitable[str]]

current_runner: ContextVar[SubagentRunner | None] = ContextVar("subagent_runner", default=None)

MAX_PROMPT_CHARS = 20_000


class TaskTool:
    name = "task"
    # The sub-agent can only read, so the call is a read: several run at once, and plan
    # mode allows them. Each of its own calls goes through the policy again.
    kind: ToolKind = "read"
    description = (
        "Send a read-only helper to research a question about the code and report back. It "
        "starts with no knowledge of this conversation: give it a complete, self-contained "
        "task (what to find, where to look, what the report must contain). It can read files, "
        "list folders and search, but not edit or run commands. Only its final report comes "
        "back, which keeps large explorations out of your context. Several task calls in one "
        "response run at the same time."
    )
    parameters = {
        "type": "object",
        "properties": {
            "prompt": {
                "type": "string",
                "description": "The complete task for the helper, and what its report must say.",
            },
        },
        "required": ["prompt"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        prompt = require(args, "prompt", str)
        if not prompt.strip():
            raise ToolError("prompt must say what the helper should find out")
        if len(prompt) > MAX_PROMPT_CHARS:
            raise ToolError(f"prompt is {len(prompt)} characters; keep it under "
                            f"{MAX_PROMPT_CHARS} (the helper can read files itself)")
        return ToolRequest(self.name, self.kind, args)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        runner = current_runner.get()
        if runner is None:
            raise ToolError("task is not available here: no agent session runs this call")
        report = await runner(require(args, "prompt", str))
        return ToolOutput(report)
