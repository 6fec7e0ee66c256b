"""Tool names the views draw in their own way, shared by the widgets and the screens.

An edit's call carries a diff (reviewed hunk by hunk, expanded as a diff view); the call
that starts a pseudo-terminal is followed by the live terminal it started.
"""

from __future__ import annotations

EDIT_TOOLS = frozenset({"edit_file", "write_file"})
TERMINAL_TOOL = "interactive_start"  # its result names a pseudo-terminal session
