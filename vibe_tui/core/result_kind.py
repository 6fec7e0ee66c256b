"""What a tool result is, for the views: its tool's family and its structured facts.

The model reads the text; a view draws a terminal, a diff or a file from ``kind`` and
``meta`` on the ToolResult event, never by parsing that text.
"""

from __future__ import annotations

import json
from typing import Any

from vibe_tui.core.events import ResultKind
from vibe_tui.tools.base import Tool

TOOL_FAMILIES: dict[str, ResultKind] = {
    "read_file": "file",
    "list_dir": "file",
    "write_file": "edit",
    "edit_file": "edit",
    "bash": "command",
    "interactive_start": "terminal",
    "interactive_send": "terminal",
    "interactive_stop": "terminal",
    "grep": "search",
    "repo_map": "repo_map",
    "task": "task",
    "todo": "plan",
}


def result_kind(name: str, tool: Tool | None) -> ResultKind:
    """The family of the tool called ``name``; an MCP server's tools are "mcp" whatever
    they are called (they carry the server's name)."""
    if tool is not None and isinstance(getattr(tool, "server", None), str):
        return "mcp"
    return TOOL_FAMILIES.get(name, "other")


def json_safe(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` as the JSONL log will give it back on resume (paths and the like become
    strings), so a live event and a resumed one hold the same values."""
    if not meta:
        return {}
    safe = json.loads(json.dumps(meta, ensure_ascii=False, default=str))
    return safe if isinstance(safe, dict) else {}
