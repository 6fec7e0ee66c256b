"""Hooks as the config files give them: ``[[hooks.PreToolUse]]`` tables, in Claude Code's
shape (a ``matcher`` and a list of ``hooks``) or flat (a ``matcher`` and a ``command``).

Only the reading is here; ``core/hooks.py`` runs them. A hook that does not parse is an
error, never skipped: a hook meant to block ``rm`` that silently did not load would let
through what the user meant to stop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOOK_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 600.0
# Tool names as Claude Code's hooks match them, for ours: its users' matchers work as they are.
CLAUDE_TOOL_NAMES = {
    "bash": "Bash", "edit_file": "Edit", "write_file": "Write", "read_file": "Read",
    "grep": "Grep", "list_dir": "LS", "task": "Task", "todo": "TodoWrite",
}


@dataclass(frozen=True)
class HookSpec:
    event: str  # one of HOOK_EVENTS
    command: str
    matcher: str = ""  # a regular expression over the tool name; "" or "*": every tool
    timeout_s: float = DEFAULT_TIMEOUT_S
    source: str = "user"  # "user" or "project": where it was configured, for the views

    def matches(self, tool: str | None) -> bool:
        if tool is None or self.matcher in ("", "*"):
            return True
        names = (tool, CLAUDE_TOOL_NAMES.get(tool, tool))
        return any(re.fullmatch(self.matcher, name) for name in names)


def parse_hooks(table: Any, path: Path, source: str) -> list[HookSpec]:
    """The ``[hooks]`` table of ``path`` as hook specs; ValueError naming what is wrong."""
    if table is None:
        return []
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [hooks] must be a table of events ({', '.join(HOOK_EVENTS)})")
    specs: list[HookSpec] = []
    for event, entries in table.items():
        if event not in HOOK_EVENTS:
            raise ValueError(f"{path}: unknown hook event {event!r}; the events are "
                             f"{', '.join(HOOK_EVENTS)}")
        if isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            raise ValueError(f"{path}: hooks.{event} must be a list of tables")
        for entry in entries:
            specs += _entry_specs(event, entry, path, source)
    return specs


def _entry_specs(event: str, entry: Any, path: Path, source: str) -> list[HookSpec]:
    where = f"{path}: hooks.{event}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must hold tables (matcher, command or hooks)")
    matcher = entry.get("matcher", "")
    if not isinstance(matcher, str):
        raise ValueError(f"{where}: matcher must be a string")
    try:
        re.compile(matcher if matcher != "*" else "")
    except re.error as exc:
        raise ValueError(f"{where}: matcher {matcher!r} is not a regular expression: {exc}") \
            from None
    commands = entry.get("hooks", [entry] if "command" in entry else None)
    if not isinstance(commands, list) or not commands:
        raise ValueError(f"{where}: give a command, or hooks = [{{ command = \"...\" }}]")
    return [_spec(event, matcher, command, where, source) for command in commands]


def _spec(event: str, matcher: str, hook: Any, where: str, source: str) -> HookSpec:
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str) \
            or not hook["command"].strip():
        raise ValueError(f"{where}: each hook needs a command (a string)")
    if hook.get("type", "command") != "command":
        raise ValueError(f"{where}: only hooks of type \"command\" are supported")
    timeout = hook.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not 0 < timeout <= MAX_TIMEOUT_S:
        raise ValueError(f"{where}: timeout must be seconds, above 0 and at most "
                         f"{MAX_TIMEOUT_S:.0f}")
    return HookSpec(event=event, command=hook["command"], matcher=matcher,
                    timeout_s=float(timeout), source=source)
