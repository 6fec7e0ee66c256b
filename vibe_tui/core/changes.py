"""The session's change record: what the agent's edit tools and commands changed, and
undoing it.

A file enters the record with its content before the session first changed it
(``record``, after ``core/undo.py`` saw a tool or a command change it; ``remember`` before
a write); after every write the record notes what the agent left on disk (``touched``).
What a command changed is found by ``watch``, a look at the workspace before and after
it (``core/workspace_scan.py``). From these come the
cumulative diff of each file against the session start, a flag for files changed outside
the agent since it last wrote them, and reverts of a whole file or of one hunk of that
diff. Each revert leaves a note the model reads at its next step, so it does not build
on lines that are gone.

All of it reads and writes files: callers run it off the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.tools.hunks import apply_hunks, split_hunks
from vibe_tui.tools.text_file import decode_text, encode_text, unified_diff, write_atomic
from vibe_tui.tools.paths import display_path
from vibe_tui.core.workspace_scan import WorkspaceWatch

GIT_STAT_TIMEOUT_S = 5.0


@dataclass
class _Tracked:
    path: Path
    rel: str
    original: bytes | None  # None: the file did not exist before the agent wrote it
    last_written: str | None = None  # digest of what the agent (or a revert) left on disk


@dataclass(frozen=True)
class ChangedFile:
    """One file as it stands against the session start."""

    rel: str
    diff: str  # cumulative unified diff, session start -> now ("" for a binary file)
    hunks: list[str]  # the text of each hunk of ``diff``
    added: int
    removed: int
    created: bool
    deleted: bool
    binary: bool
    changed_outside: bool  # on disk differs from what the agent last wrote


class ChangeError(ValueError):
    """A revert that cannot be done; the message says why, for the user."""


class ChangeRecord:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._files: dict[Path, _Tracked] = {}
        self._notes: list[str] = []
        self.watch = WorkspaceWatch(workspace)  # what commands change (core/undo.py)

    # ---- what the agent loop calls around an edit tool ---------------------------------

    def remember(self, paths: Iterable[Path]) -> None:
        """Keep each file's content the first time a tool is about to write it."""
        for path in paths:
            if path not in self._files:
                self._files[path] = _Tracked(path, display_path(path, self.workspace),
                                             _read(path))

    def record(self, path: Path, before: bytes | None) -> None:
        """A tool or command changed ``path``, which held ``before`` (None: absent). The
        first time, that is its content at the session start; what is there now is the
        agent's."""
        if path not in self._files:
            self._files[path] = _Tracked(path, display_path(path, self.workspace), before)
        self.touched([path])

    def touched(self, paths: Iterable[Path]) -> None:
        """A tool wrote (or tried to write) these files: what is there now is the agent's."""
        for path in paths:
            if (tracked := self._files.get(path)) is not None:
                tracked.last_written = _digest(_read(path))

    # ---- what views read --------------------------------------------------------------

    def files(self) -> list[ChangedFile]:
        """Every tracked file that differs from its content at the session start."""
        changed = [self._describe(tracked) for tracked in self._files.values()]
        return sorted((c for c in changed if c is not None), key=lambda c: c.rel)

    def take_notes(self) -> list[str]:
        """What the user reverted since the model last heard about it."""
        taken, self._notes = self._notes, []
        return taken

    # ---- reverts ----------------------------------------------------------------------

    def revert(self, rel: str, hunk: int | None = None) -> str:
        """Undo the session's changes to ``rel``, or only hunk ``hunk`` of its cumulative
        diff. Returns a line for the user; raises ChangeError when it cannot."""
        tracked = self._find(rel)
        if hunk is None:
            return self._revert_file(tracked)
        return self._revert_hunk(tracked, hunk)

    def _revert_file(self, tracked: _Tracked) -> str:
        if tracked.original is None:
            tracked.path.unlink(missing_ok=True)
            done, state = f"deleted {tracked.rel}, which this session created", "it is deleted"
        else:
            _write(tracked, tracked.original)
            done = f"restored {tracked.rel} to its content at the session start"
            state = "it is back to its content before this session"
        tracked.last_written = _digest(_read(tracked.path))
        self._notes.append(f"[vibe-tui: the user reverted all of this session's changes to "
                           f"{tracked.rel}; {state}. Read it again before editing it.]")
        return done

    def _revert_hunk(self, tracked: _Tracked, index: int) -> str:
        before, now = _texts(tracked, _read(tracked.path))
        if before is None or now is None:
            raise ChangeError(f"{tracked.rel} is binary: it can only be reverted whole")
        diff = unified_diff(before[0], now[0], tracked.rel)
        hunks = split_hunks(diff)
        if not 0 <= index < len(hunks):
            raise ChangeError(f"{tracked.rel} has {len(hunks)} hunks; there is no hunk "
                              f"{index + 1}")
        kept = [other for other in range(len(hunks)) if other != index]
        text = apply_hunks(before[0], now[0], kept)
        _write(tracked, encode_text(text, now[1], now[2]))
        tracked.last_written = _digest(_read(tracked.path))
        self._notes.append(f"[vibe-tui: the user reverted this change in {tracked.rel}; those "
                           f"lines are back as they were:\n{hunks[index].rstrip()}\n"
                           "Read the file again before editing near it.]")
        return f"reverted hunk {index + 1} of {len(hunks)} in {tracked.rel}"

    def _find(self, rel: str) -> _Tracked:
        for tracked in self._files.values():
            if tracked.rel == rel:
                return tracked
        raise ChangeError(f"{rel} was not changed by the agent in this session")

    def _describe(self, tracked: _Tracked) -> ChangedFile | None:
        current = _read(tracked.path)
        if current == tracked.original:
            return None
        outside = (tracked.last_written is not None
                   and _digest(current) != tracked.last_written)
        created, deleted = tracked.original is None, current is None
        before, now = _texts(tracked, current)
        if before is None or now is None:
            return ChangedFile(tracked.rel, "", [], 0, 0, created, deleted, True, outside)
        diff = unified_diff(before[0], now[0], tracked.rel, created=created)
        added, removed = _count_lines(diff)
        return ChangedFile(tracked.rel, diff, split_hunks(diff), added, removed, created,
                           deleted, False, outside)


Decoded = tuple[str, str, bool]  # text, encoding, BOM


def _texts(tracked: _Tracked, current: bytes | None) -> tuple[Decoded | None, Decoded | None]:
    """Session-start and current text; an absent file is empty text, a binary one None."""
    return _decoded(tracked.original), _decoded(current)


def _decoded(raw: bytes | None) -> Decoded | None:
    return ("", "utf-8", False) if raw is None else decode_text(raw)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _write(tracked: _Tracked, data: bytes) -> None:
    try:
        mode = os.stat(tracked.path).st_mode
    except OSError:
        mode = None
    try:
        write_atomic(tracked.path, data, mode)
    except OSError as error:
        raise ChangeError(f"cannot write {tracked.rel}: {error.strerror}") from None


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _count_lines(diff: str) -> tuple[int, int]:
    lines = diff.splitlines()
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return added, removed


async def git_diff_stat(workspace: Path) -> str | None:
    """``git diff --stat`` of the working tree, or None outside a git repository (or
    when git is missing or slow)."""
    try:
        process = await asyncio.create_subprocess_exec(
            "git", "-C", str(workspace), "diff", "--stat", "--no-color",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL)
    except OSError:
        return None
    try:
        output, _ = await asyncio.wait_for(process.communicate(), GIT_STAT_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    if process.returncode != 0:
        return None
    return output.decode("utf-8", "replace").rstrip("\n")
