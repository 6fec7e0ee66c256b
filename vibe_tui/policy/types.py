"""The policy's vocabulary: modes, decisions, the request a decision is made on, and
what else it is made from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

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


# read: never changes anything; edit: changes files in the workspace; exec: runs a process.
ToolKind = Literal["read", "edit", "exec"]


@dataclass(frozen=True)
class ToolRequest:
    """A call as the policy sees it: what it is, what it touches, what it runs."""

    tool: str
    kind: ToolKind
    args: dict[str, Any]
    paths: tuple[Path, ...] = ()  # resolved workspace paths the call reads or writes
    command: str | None = None  # the shell command, for exec tools
    cwd: Path | None = None  # where the command runs (its relative paths start there)


# How the model sees an MCP server's tool: ``mcp__<server>__<tool>``.
MCP_PREFIX = "mcp__"


@dataclass(frozen=True)
class McpRequest(ToolRequest):
    """A call of an MCP tool: the server it goes to and what the server says of it."""

    server: str = ""
    hints: tuple[str, ...] = ()  # "read-only", "destructive", ... from the tool's annotations


def is_inside(path: Path, root: Path) -> bool:
    """True when ``path`` is ``root`` or below it; compares whole components, so
    /proj-evil is not inside /proj."""
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True
