"""What each tool call and command changed, recorded for undoing; and the undoing
(reverts from the Changes screen, ``/rewind``).

Around an edit tool the files it names are read before and after it; around anything that
runs a process (``bash``, the pseudo-terminal tools, MCP tools, the user's ``!command``)
the workspace is looked at before and after (``ChangeRecord.watch``), except for shell
commands the policy finds read-only. Either way only a file whose content really changed
enters the change record (``/diff``) and the turn's checkpoints (``/rewind``): the two
list the same files, and a refused or failed write leaves nothing to undo.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

from vibe_tui.core import events as ev
from vibe_tui.core.changes import ChangeRecord
from vibe_tui.core.checkpoints import Checkpoints, RewindStep
from vibe_tui.core.steering import Steering
from vibe_tui.core.workspace_scan import FileChange
from vibe_tui.policy.shell.analysis import analyse_command
from vibe_tui.policy.types import ToolRequest
from vibe_tui.tools.base import ToolContext, ToolOutput

T = TypeVar("T")


class UndoHost(Protocol):
    """What recording and undoing use of the session (the Session is one)."""

    changes: ChangeRecord
    checkpoints: Checkpoints
    tool_context: ToolContext
    steering: Steering

    @property
    def running(self) -> bool: ...

    def emit(self, event: ev.Event, *, turn_id: int | None = None) -> ev.Event: ...


# ---- recording --------------------------------------------------------------------------


async def recorded_call(changes: ChangeRecord, checkpoints: Checkpoints, turn_id: int,
                        request: ToolRequest | None,
                        run: Callable[[], Awaitable[ToolOutput]]) -> ToolOutput:
    """Run one tool call, recording what it changed in the workspace."""
    if request is not None and request.kind == "edit" and request.paths:
        before = await asyncio.to_thread(_contents, request.paths)
        try:
            return await run()
        finally:
            changed = await asyncio.to_thread(_changed_since, before)
            await asyncio.to_thread(_record, changes, checkpoints, turn_id, changed)
    if request is None or not may_write(request):
        return await run()
    output, notes = await recorded_command(changes, checkpoints, turn_id, run)
    if notes:
        note = "\n".join(f"[vibe-tui: {n}]" for n in notes)
        output = dataclasses.replace(output, text=f"{output.text}\n{note}")
    return output


async def recorded_command(changes: ChangeRecord, checkpoints: Checkpoints, turn_id: int,
                           run: Callable[[], Awaitable[T]]) -> tuple[T, list[str]]:
    """Run a command, recording the files it changed; also notes on what could not be
    recorded (a workspace past the look's bounds, a file too large to keep)."""
    before = await changes.watch.look()
    try:
        result = await run()
    finally:  # an interrupted command may have changed files too
        changed, notes = await changes.watch.changes_since(before)
        await asyncio.to_thread(_record, changes, checkpoints, turn_id, changed)
    return result, notes


def may_write(request: ToolRequest) -> bool:
    """A process may change files, unless it is a shell command the policy reads as
    read-only (those need no look, which keeps reading cheap)."""
    if request.kind != "exec":
        return False
    return request.command is None or not analyse_command(request.command).read_only


def _contents(paths: Iterable[Path]) -> dict[Path, bytes | None]:
    return {path: _read(path) for path in paths}


def _changed_since(before: dict[Path, bytes | None]) -> list[FileChange]:
    return [FileChange(path, data) for path, data in before.items() if _read(path) != data]


def _record(changes: ChangeRecord, checkpoints: Checkpoints, turn_id: int,
            changed: list[FileChange]) -> None:
    for change in changed:
        changes.record(change.path, change.before)
        checkpoints.keep(turn_id, change.path, change.before)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


# ---- undoing ----------------------------------------------------------------------------


async def revert(host: UndoHost, rel: str, hunk: int | None) -> str:
    """Undo the session's changes to ``rel`` (or one hunk of them); the model reads
    what was reverted before its next step."""
    done = await asyncio.to_thread(host.changes.revert, rel, hunk)
    # Steering is what the loop reads before its next model call (or the next turn's
    # first): exactly when the model must hear of it.
    host.steering.note(*host.changes.take_notes())
    host.emit(ev.Notice(text=f"reverted: {done}"))
    return done


async def rewind_plan(host: UndoHost, turn_id: int) -> list[RewindStep]:
    """What ``/rewind turn_id`` would do; empty when every file is already as it was.
    Raises ValueError when nothing was changed since, or a turn runs."""
    if host.running:
        raise ValueError("stop the running turn first (Esc), then rewind")
    if not any(turn >= turn_id for turn in host.checkpoints.turns()):
        raise ValueError(f"no file was changed in turn {turn_id} or later")
    return await asyncio.to_thread(host.checkpoints.plan, turn_id)


async def rewind(host: UndoHost, turn_id: int) -> list[str]:
    """Put the files changed in turn ``turn_id`` and later back as they were before it;
    a line per file that needed it. The model hears of it before its next step."""
    steps = await rewind_plan(host, turn_id)
    if not steps:
        return []
    lines = await asyncio.to_thread(host.checkpoints.rewind, steps)
    restored = [host.tool_context.workspace / step.rel for step in steps]
    await asyncio.to_thread(host.changes.touched, restored)
    for path in restored:  # the model's last read of them is no longer what is there
        host.tool_context.read_files.pop(path, None)
    host.steering.note(f"[vibe-tui: the user restored files to how they were before turn "
                       f"{turn_id}: {'; '.join(lines)}. Read a file again before editing it.]")
    host.emit(ev.Notice(text=f"rewound to before turn {turn_id}: " + "; ".join(lines)))
    return lines
