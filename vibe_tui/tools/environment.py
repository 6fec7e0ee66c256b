"""The environment every command the agent runs gets (bash and pseudo-terminal sessions)."""

from __future__ import annotations

import os

from vibe_tui.tools.base import ToolContext

# Non-interactive defaults: no pager waiting for a key, no colour codes, no git prompt.
COMMAND_ENV = {
    "CI": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "TERM": "dumb",
    "GIT_TERMINAL_PROMPT": "0",
}


def command_env(ctx: ToolContext) -> dict[str, str]:
    """The process environment for a command of this session."""
    return {**os.environ, **COMMAND_ENV}
