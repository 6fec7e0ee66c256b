"""What a session's commands run under, as its views show it: the sandbox in force, the
virtual environment in use, the working folder. The widgets read these here rather than
reaching into the tools (views sit above core, and widgets never import tools)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

# Through the module, not its names: tests pin what the probe reports.
from vibe_tui.tools import environment, sandbox
from vibe_tui.tools.sandbox import SandboxState

if TYPE_CHECKING:
    from vibe_tui.core.session import Session

__all__ = ["SandboxState", "known_sandbox", "probe_sandbox", "sandbox_details", "venv_in_use",
           "working_folder"]


def known_sandbox(session: Session) -> SandboxState | None:
    """The sandbox in force when that needs no probe (or the probe has run), else None."""
    return sandbox.known_in_force(session.tool_context)


async def probe_sandbox(session: Session) -> SandboxState:
    """The sandbox in force, probing bubblewrap if no one has yet."""
    return await sandbox.in_force_async(session.tool_context)


async def sandbox_details(session: Session) -> list[str]:
    """What the sandbox hides and allows, line by line, for the user (blocking: a thread)."""
    return await asyncio.to_thread(sandbox.describe_for_user, session.tool_context)


def venv_in_use(session: Session) -> Path | None:
    """The virtual environment the session's commands find first on PATH, if any."""
    return environment.venv_in_use(session.tool_context)


def working_folder(session: Session) -> Path:
    """Where the session's next command runs (a shell ``cd`` moves it)."""
    return session.tool_context.cwd
