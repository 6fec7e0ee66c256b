"""The pseudo-terminals a session's ``interactive_start`` calls started, for the views
that draw them and type into them. The terminal runtime lives in the tools; the views
reach it here (widgets never import tools)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vibe_tui.tools.pty_session import PtySession
from vibe_tui.tools.terminal import BRACKETED_PASTE, key_bytes

if TYPE_CHECKING:
    from vibe_tui.core import events as ev
    from vibe_tui.core.session import Session

__all__ = ["PtySession", "key_sequence", "pastes_bracketed", "started_terminal"]


def started_terminal(session: Session, result: ev.ToolResult, command: str
                     ) -> PtySession | None:
    """The terminal an ``interactive_start`` result names in its ``meta``, while the
    session still has it and it runs ``command`` (a resumed session's old results name ids that a new
    program may hold now)."""
    terminal_id = result.meta.get("session_id")
    terminal = (session.tool_context.interactive.get(terminal_id)
                if isinstance(terminal_id, str) else None)
    if terminal is None or terminal.command != command:
        return None
    return terminal


def key_sequence(name: str, app_cursor: bool) -> bytes:
    """The bytes a terminal sends for a named key (``enter``, ``up``, ``ctrl-c``...);
    ``app_cursor``: the program asked for application cursor keys."""
    return key_bytes(name, app_cursor).encode()


def pastes_bracketed(terminal: PtySession) -> bool:
    """Whether the program asked to tell pasted text from typed text."""
    return BRACKETED_PASTE in terminal.screen.mode
