"""What a command changed in the workspace: a look before it runs and one after.

The edit tools name the files they write; a shell command does not, so the files it
created, changed or deleted are found by comparing two looks at the workspace.

In a git repository git says where to look: ``git status`` lists what differs from the
index or is untracked (ignored files are left out, as in the user's own ``git status``),
and a file it does not list is as the index has it, so its content before a command is
the index's copy. Commands cannot change the index (every ``.git`` is read-only in the
sandbox). Elsewhere a walk of the workspace stats every file, skipping ``.git``,
dependency folders, virtual environments and caches.

Either way a listed file's bytes are kept when first seen and read again only when its
size or modification time moved, so a look costs a stat per file, not a read. A look is
bounded (``MAX_FILES`` files, ``LOOK_TIME_S`` seconds); past a bound it stops and says
so, and nothing is recorded for that command rather than something wrong.

Reads and walks run off the event loop; git runs as a subprocess with a timeout.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.tools.environment import HARDENED_GIT

MAX_FILES = 20_000
LOOK_TIME_S = 3.0
KEEP_FILE_MAX_BYTES = 1024 * 1024  # larger files are watched, not kept: not revertible
KEEP_TOTAL_MAX_BYTES = 64 * 1024 * 1024
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox",
                          ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cache"})

Stamp = tuple[int, int] | None  # (size, mtime_ns); None: the file is absent


@dataclass(frozen=True)
class Look:
    stamps: dict[str, Stamp]  # workspace-relative path -> stamp, for each file looked at
    in_git: bool  # True: a file not in ``stamps`` is as git's index has it
    note: str | None = None  # why the look stopped short; then it is not compared


@dataclass(frozen=True)
class FileChange:
    path: Path
    before: bytes | None  # its content before the command; None: it did not exist


class TooLarge(Exception):
    """A look passed one of its bounds."""


class WorkspaceWatch:
    """Looks at one workspace before and after commands; keeps listed files' bytes."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._kept: dict[str, tuple[Stamp, bytes]] = {}
        self._kept_bytes = 0
        self._git_root: Path | None | bool = False  # False: not asked yet

    async def look(self) -> Look:
        """The files a command might change, with their bytes kept where they fit."""
        look = await self._look()
        await asyncio.to_thread(self._keep, look.stamps)
        return look

    async def _look(self) -> Look:
        try:
            root = await self._repository_root()
            if root is None:
                stamps = await asyncio.to_thread(_walk, self.workspace)
            else:
                listed = await _git_status(self.workspace)
                stamps = await asyncio.to_thread(self._stamp_all, [root / p for p in listed])
        except TooLarge as bound:
            return Look({}, False, f"{bound}: what commands change in it is not recorded")
        return Look(stamps, root is not None)

    async def changes_since(self, before: Look) -> tuple[list[FileChange], list[str]]:
        """What differs now from ``before``: each changed file with its earlier content,
        and notes on what could not be recorded."""
        after = await self._look()
        if before.note or after.note:
            return [], [before.note or after.note or ""]
        try:
            return await self._compare(before, after)
        finally:  # kept only now: the comparison needs the earlier bytes
            await asyncio.to_thread(self._keep, after.stamps)

    async def _compare(self, before: Look, after: Look) -> tuple[list[FileChange], list[str]]:
        moved = await asyncio.to_thread(self._moved, before, after)
        from_index = [rel for rel in moved if rel not in before.stamps and before.in_git]
        index = await self._index_copies(from_index) if from_index else {}
        changes, notes = [], []
        for rel in moved:
            earlier = index.get(rel) if rel in from_index else self._earlier(before, rel)
            current = await asyncio.to_thread(_read, self.workspace / rel)
            if earlier is _UNKNOWN:
                notes.append(f"a command touched {rel}, too large to have been kept: "
                             "what it did to it cannot be reverted")
            elif earlier != current:
                changes.append(FileChange(self.workspace / rel, earlier))
        return changes, notes

    # ---- parts ------------------------------------------------------------------------

    def _moved(self, before: Look, after: Look) -> list[str]:
        """Files whose stamp differs between the two looks (or from the index's)."""
        moved = []
        for rel in sorted(before.stamps.keys() | after.stamps.keys()):
            now = after.stamps[rel] if rel in after.stamps else _stamp(self.workspace / rel)
            if rel not in before.stamps or before.stamps[rel] != now:
                moved.append(rel)
        return moved

    def _earlier(self, before: Look, rel: str) -> bytes | None | object:
        stamp = before.stamps.get(rel)
        if stamp is None:
            return None
        kept = self._kept.get(rel)
        return kept[1] if kept is not None and kept[0] == stamp else _UNKNOWN

    def _stamp_all(self, paths: list[Path]) -> dict[str, Stamp]:
        if len(paths) > MAX_FILES:
            raise TooLarge(f"git lists more than {MAX_FILES} changed or untracked files")
        stamps = {}
        for path in paths:
            if path.is_relative_to(self.workspace):
                stamps[path.relative_to(self.workspace).as_posix()] = _stamp(path)
        return stamps

    def _keep(self, stamps: dict[str, Stamp]) -> None:
        for rel, stamp in stamps.items():
            kept = self._kept.get(rel)
            if stamp is None or (kept is not None and kept[0] == stamp):
                continue
            if kept is not None:
                self._kept_bytes -= len(kept[1])
                del self._kept[rel]
            if stamp[0] > KEEP_FILE_MAX_BYTES or self._kept_bytes + stamp[0] > KEEP_TOTAL_MAX_BYTES:
                continue
            data = _read(self.workspace / rel)
            if data is not None and len(data) == stamp[0]:
                self._kept[rel] = (stamp, data)
                self._kept_bytes += len(data)

    async def _repository_root(self) -> Path | None:
        if self._git_root is False:
            output = await _git(self.workspace, "rev-parse", "--show-toplevel")
            self._git_root = Path(output.decode().strip()).resolve() if output else None
        return self._git_root  # type: ignore[return-value]

    async def _index_copies(self, rels: list[str]) -> dict[str, bytes | None]:
        """Each file's content in git's index; None for a file the index does not hold."""
        root = await self._repository_root()
        assert root is not None
        names = [(self.workspace / rel).relative_to(root).as_posix() for rel in rels]
        request = "".join(f":{name}\n" for name in names).encode()
        output = await _git(self.workspace, "cat-file", "--batch", stdin=request) or b""
        copies: dict[str, bytes | None] = {}
        for rel in rels:
            header, _, output = output.partition(b"\n")
            parts = header.split()
            if len(parts) == 3 and parts[1] == b"blob":
                size = int(parts[2])
                copies[rel], output = output[:size], output[size + 1:]
            else:
                copies[rel] = None
        return copies


_UNKNOWN = object()  # a file's earlier content, when it was too large to keep


def _stamp(path: Path) -> Stamp:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if _stamp(path) is not None else None
    except OSError:
        return None


def _walk(workspace: Path) -> dict[str, Stamp]:
    """Every regular file outside the skipped folders, within the bounds."""
    deadline = time.monotonic() + LOOK_TIME_S
    stamps: dict[str, Stamp] = {}
    for folder, subfolders, names in os.walk(workspace):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED_DIRS]
        for name in names:
            path = Path(folder, name)
            stamps[path.relative_to(workspace).as_posix()] = _stamp(path)
        if len(stamps) > MAX_FILES:
            raise TooLarge(f"the workspace has more than {MAX_FILES} files")
        if time.monotonic() > deadline:
            raise TooLarge(f"the workspace takes more than {LOOK_TIME_S:g} s to look through")
    return {rel: stamp for rel, stamp in stamps.items() if stamp is not None}


async def _git_status(workspace: Path) -> list[str]:
    """Paths (from the repository root) git sees as changed, deleted or untracked."""
    output = await _git(workspace, "status", "--porcelain=v1", "-z", "--no-renames",
                        "--untracked-files=all", "--", ".")
    if output is None:
        raise TooLarge(f"git status did not answer within {LOOK_TIME_S:g} s")
    return [entry[3:] for entry in output.decode("utf-8", "surrogateescape").split("\0")
            if len(entry) > 3]


async def _git(workspace: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    """git's output, or None when it fails, is missing or passes LOOK_TIME_S. Settings
    that would start a program named in the repository are off."""
    hardened = [part for key, value in HARDENED_GIT for part in ("-c", f"{key}={value}")]
    try:
        process = await asyncio.create_subprocess_exec(
            "git", "--no-optional-locks", *hardened, "-C", str(workspace), *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    except OSError:
        return None
    try:
        output, _ = await asyncio.wait_for(process.communicate(stdin), LOOK_TIME_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    return output if process.returncode == 0 else None
