"""What every tool is: a name, a JSON schema the model sees, a precheck and a run.

The agent loop only knows this protocol. A tool reports problems the model can fix by
raising ``ToolError`` with a message written for the model; anything else is a bug.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from vibe_tui.policy.types import ToolKind, ToolRequest


class ToolError(Exception):
    """A failure the model should read and can act on (bad argument, missing file, ...)."""


@dataclass
class ToolContext:
    """What a running tool may touch. One per session; tools keep shell state here."""

    workspace: Path
    cwd: Path | None = None
    bash_timeout_default_s: float = 30.0
    bash_timeout_max_s: float = 120.0
    # Process groups of running commands, so an interrupt can kill them all.
    running_pids: set[int] = field(default_factory=set)
    # Files the model has read in this session (path -> mtime_ns), for stale-edit checks.
    read_files: dict[Path, int] = field(default_factory=dict)
    # Pseudo-terminal sessions by id (vibe_tui.tools.pty_session), open and recently closed.
    interactive: dict[str, Any] = field(default_factory=dict)
    # Variables the user exported (``!export``) for later commands; None means unset.
    env_overrides: dict[str, str | None] = field(default_factory=dict)
    # The command sandbox (vibe_tui.tools.sandbox): "auto" uses bubblewrap where it works,
    # "off" runs commands on the host (--no-sandbox). Without bubblewrap, commands refuse
    # to run unless allow_host (or VIBE_TUI_ALLOW_HOST=1) says the host is fine.
    sandbox_mode: str = "auto"
    sandbox_network: bool = False
    allow_host: bool = False
    # Inherited variables commands get although their names say they hold secrets
    # (``[sandbox] pass_env``), and more paths the sandbox hides (``[sandbox] hide``).
    pass_env: tuple[str, ...] = ()
    hide_paths: tuple[str, ...] = ()
    # The session's deny rules: what a ``Read(...)`` one names is hidden from commands too.
    read_deny: tuple[str, ...] = ()
    # Git folders in the workspace, which commands may not write, found before and after
    # each command (vibe_tui.tools.git_dirs); and where one a command created is moved.
    git_dirs: Any = None
    quarantine_dir: Path | None = None

    def __post_init__(self) -> None:
        self.workspace = self.workspace.resolve()
        if self.cwd is None:
            self.cwd = self.workspace


# How an old tool result reads once the context manager has cleared it (core/context.py
# writes it). The file tools refuse it as content: a model may copy it back into a file.
CLEARED_NOTE_PREFIX = "[cleared: "


@dataclass(frozen=True)
class ToolOutput:
    """The text the model reads, plus what the views show."""

    text: str
    ok: bool = True
    diff: str | None = None  # unified diff for edits
    exit_code: int | None = None  # for commands
    meta: dict[str, Any] = field(default_factory=dict)


class Tool(Protocol):
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments
    kind: ToolKind

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        """Validate arguments and resolve paths without side effects; raise ToolError."""
        ...

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """The unified diff an edit would make (shown in approvals), or None."""
        ...

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        ...


def schema_of(tool: Tool) -> dict[str, Any]:
    """The OpenAI function-tool entry for a tool."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def require(args: dict[str, Any], name: str, kind: type = str) -> Any:
    """An argument that must be present and of a given type, or a ToolError naming it."""
    if name not in args or args[name] is None:
        raise ToolError(f"missing required argument '{name}'")
    value = args[name]
    if kind is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)  # small models often quote numbers
    if kind is float and isinstance(value, (int, str)):
        try:
            return float(value)
        except ValueError:
            pass
    if kind is bool and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ToolError(f"argument '{name}' must be a {kind.__name__}, got {type(value).__name__}")
    return value


def require_command(args: dict[str, Any]) -> str:
    """The ``command`` argument of a tool that runs one: a string with something in it."""
    command = require(args, "command", str)
    if not command.strip():
        raise ToolError("argument 'command' must not be empty")
    return command


def optional(args: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    if args.get(name) is None:
        return default
    return require(args, name, kind)


async def in_thread(func, *args):
    """Blocking file work goes off the event loop."""
    return await asyncio.to_thread(func, *args)
