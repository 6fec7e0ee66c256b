"""AGENTS.md: the user's and the project's standing instructions, put into the system prompt.

Read from the most general to the most specific: the user's own file
(``<config dir>/AGENTS.md``), then every AGENTS.md from the repository root (the git root,
or the workspace when there is none) down to the working directory. The prompt tells the
model that a later file wins where two disagree. At most 32 KiB in all: when there is
more, the closest files are kept whole and the most general ones are cut.

The session reads them again when one changed on disk (``MemoryWatch.current``, one
``stat`` per candidate file, at each turn's start and for ``/memory``): an AGENTS.md that
``/init`` had the agent write is in the system prompt from the next request on. Between
changes the prompt stays byte-identical, so the provider's prompt cache keeps its prefix.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.config.paths import config_dir
from vibe_tui.core.events import Event, Notice
from vibe_tui.policy.types import is_inside

MEMORY_FILE = "AGENTS.md"
MAX_MEMORY_BYTES = 32 * 1024
CUT_NOTE = "\n[... cut here: AGENTS.md files are limited to {cap} KiB in all]"


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    label: str  # how the prompt and /memory name it
    text: str  # what went into the prompt
    size: int  # bytes on disk
    truncated: bool


@dataclass(frozen=True)
class Memory:
    """What was loaded, most general first; ``prompt`` is the system-prompt section."""

    files: tuple[MemoryFile, ...] = ()
    cap: int = MAX_MEMORY_BYTES

    @property
    def prompt(self) -> str:
        return "\n".join(f"## {f.label}\n\n{f.text.rstrip()}\n" for f in self.files)

    def describe(self) -> str:
        """For ``/memory``: each file, where it is, and how much of it was used."""
        if not self.files:
            return (f"No AGENTS.md loaded. vibe-tui reads {config_dir() / MEMORY_FILE}, then "
                    f"every {MEMORY_FILE} from the repository root down to the working folder.")
        lines = [f"AGENTS.md loaded into the system prompt ({self.used} of {self.cap} bytes; "
                 "later files win where they disagree):"]
        for memory_file in self.files:
            cut = " (cut to fit)" if memory_file.truncated else ""
            lines.append(f"  {memory_file.path}  {memory_file.size} bytes{cut}")
        return "\n".join(lines)

    @property
    def used(self) -> int:
        return sum(len(f.text.encode("utf-8")) for f in self.files)


# A candidate file as last seen: (mtime_ns, size, inode), None when it did not exist.
Stamp = tuple[int, int, int] | None


class MemoryWatch:
    """The session's AGENTS.md files: read at the start, read again when one changed."""

    def __init__(self, workspace: Path, cwd: Path | None,
                 emit: Callable[[Event], object]) -> None:
        self.workspace = workspace
        self.cwd = cwd  # where the session started: a later ``cd`` does not move it
        self._emit = emit
        self._stamps = self._stamp()
        self.memory = load_memory(workspace, cwd)

    def current(self) -> Memory:
        """The memory as on disk now; a change is read again and told to the user."""
        stamps = self._stamp()
        if stamps != self._stamps:
            self._stamps = stamps  # taken before reading: a write during it is seen next time
            before = {f.path for f in self.memory.files}
            self.memory = load_memory(self.workspace, self.cwd)
            changed = [str(f.path) for f in self.memory.files if f.path not in before]
            self._emit(Notice(text="AGENTS.md changed on disk: the agent follows it from the "
                                   "next request" + (f" (new: {', '.join(changed)})"
                                                     if changed else "")))
        return self.memory

    def _stamp(self) -> list[Stamp]:
        return [_stamp(path) for path, _ in memory_paths(self.workspace, self.cwd)]


def _stamp(path: Path) -> Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


def repository_root(start: Path) -> Path | None:
    """The closest folder at or above ``start`` holding ``.git`` (a folder, or a file in a
    worktree or submodule)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def memory_paths(workspace: Path, cwd: Path | None = None) -> list[tuple[Path, str]]:
    """Candidate files with their labels, most general first (they need not exist)."""
    workspace = workspace.resolve()
    cwd = (cwd or workspace).resolve()
    root = repository_root(workspace) or workspace
    if not is_inside(cwd, root):
        root = cwd
    folders = [root]
    for part in cwd.relative_to(root).parts:
        folders.append(folders[-1] / part)
    user_file = config_dir() / MEMORY_FILE
    paths = [(user_file, f"From {user_file} (the user's own instructions)")]
    for folder in folders:
        rel = (folder / MEMORY_FILE).relative_to(root)
        where = "the repository root" if folder == root else str(rel.parent)
        paths.append((folder / MEMORY_FILE, f"From {rel} ({where})"))
    return paths


def load_memory(workspace: Path, cwd: Path | None = None,
                cap: int = MAX_MEMORY_BYTES) -> Memory:
    """Every AGENTS.md that applies, cut to ``cap`` bytes in all (closest kept first)."""
    found: list[tuple[Path, str, bytes, int]] = []
    seen: set[Path] = set()
    for path, label in memory_paths(workspace, cwd):
        read = _read_head(path, cap)
        if read is None or path.resolve() in seen:
            continue
        seen.add(path.resolve())
        data, size = read
        if data.strip():
            found.append((path, label, data, size))
    room = cap
    kept: list[MemoryFile] = []
    for path, label, data, size in reversed(found):  # the closest file has the first claim
        if room <= 0:
            break
        text, truncated = _fit(data, size, room, cap)
        kept.append(MemoryFile(path, label, text, size, truncated))
        room -= len(data) if not truncated else room
    return Memory(tuple(reversed(kept)), cap)


def _read_head(path: Path, cap: int) -> tuple[bytes, int] | None:
    """At most ``cap`` bytes of a file and its size, or None when it cannot be read."""
    try:
        with path.open("rb") as handle:
            data = handle.read(cap + 1)
            size = max(len(data), path.stat().st_size)
    except OSError:
        return None
    return data, size


def _fit(data: bytes, size: int, room: int, cap: int) -> tuple[str, bool]:
    if size <= room and len(data) <= room:
        return data.decode("utf-8", "replace"), False
    note = CUT_NOTE.format(cap=cap // 1024)
    head = data[:max(0, room - len(note.encode()))].decode("utf-8", "ignore")
    if "\n" in head:
        head = head[:head.rindex("\n")]  # end on a whole line
    return head + note, True
