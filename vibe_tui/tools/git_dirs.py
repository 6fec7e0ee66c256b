"""Git folders in the workspace, which commands must never write.

Git runs programs named in a repository's own folder (hooks, ``core.fsmonitor``, filter
and diff drivers, the pager) when the user next runs git there, outside any sandbox and
any approval. So every git folder in the workspace is mounted read-only inside the
sandbox: the workspace's ``.git``, nested repositories, submodules' ``.git`` files, and
bare repositories committed as ordinary folders. They are found before each command
(``GitDirs.refresh``); one that a command created (``git init``, ``cargo new``, or a few
``mkdir`` and ``echo``) is found after it and moved out of the workspace
(``quarantine``), because it was writable while that command ran.

What counts, as git's own discovery sees it: any entry named ``.git`` (a folder, a file
holding ``gitdir: ...``, or a link), and any folder that holds ``HEAD``, ``objects`` and
``refs`` (a bare repository). A rescan lists only folders whose inode change time moved
since the last look: creating, removing or renaming an entry changes it, and unlike the
modification time, no command can set it back.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

GIT_ENTRY = ".git"
BARE_MARKERS = ("HEAD", "objects", "refs")


@dataclass
class _Folder:
    stamp: tuple[int, int]  # (inode, change time): any entry added, removed or renamed moves it
    subfolders: list[str]
    git_entries: list[str]  # paths of what in this folder is a git folder (or .git file)


def _stamp(info: os.stat_result) -> tuple[int, int]:
    return info.st_ino, info.st_ctime_ns


def _is_bare(entries: dict[str, os.DirEntry]) -> bool:
    head, objects, refs = (entries.get(name) for name in BARE_MARKERS)
    try:
        return (head is not None and not head.is_dir() and objects is not None
                and objects.is_dir() and refs is not None and refs.is_dir())
    except OSError:
        return False


def _list(path: str) -> _Folder | None:
    try:
        info = os.lstat(path)
        with os.scandir(path) as listing:
            entries = {entry.name: entry for entry in listing}
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    git_entries = []
    if _is_bare(entries):
        git_entries.append(path)
    if GIT_ENTRY in entries:
        git_entries.append(entries[GIT_ENTRY].path)
    subfolders = []
    for name, entry in entries.items():
        if name == GIT_ENTRY:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.path)
        except OSError:
            continue
    return _Folder(_stamp(info), subfolders, git_entries)


@dataclass
class GitDirs:
    """The workspace's git folders, kept current by cheap rescans."""

    workspace: Path
    found: set[str] = field(default_factory=set)
    _folders: dict[str, _Folder] = field(default_factory=dict)

    def refresh(self) -> set[str]:
        """Look again; returns the git folders that appeared since the last look."""
        before = set(self.found)
        self.found = self._scan()
        return self.found - before

    def _scan(self) -> set[str]:
        seen: dict[str, _Folder] = {}
        found: set[str] = set()
        stack = [str(self.workspace)]
        while stack:
            path = stack.pop()
            folder = self._look(path)
            if folder is None:
                continue
            seen[path] = folder
            found.update(folder.git_entries)
            if path in folder.git_entries and path != str(self.workspace):
                continue  # a bare repository: read-only as a whole, nothing below matters
            stack.extend(folder.subfolders)
        self._folders = seen
        return found

    def _look(self, path: str) -> _Folder | None:
        cached = self._folders.get(path)
        if cached is not None:
            try:
                if _stamp(os.lstat(path)) == cached.stamp:
                    return cached
            except OSError:
                return None
        return _list(path)

    def read_only(self) -> list[str]:
        """What to mount read-only, parents before children."""
        return sorted(self.found, key=lambda p: (p.count(os.sep), p))


def quarantine(paths: set[str], workspace: Path, into: Path) -> list[tuple[str, Path]]:
    """Move git folders a command created out of the workspace, into ``into``; returns
    (path relative to the workspace, where it went) for each one moved."""
    moved = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for path in sorted(paths, key=lambda p: (p.count(os.sep), p)):
        if not os.path.lexists(path):
            continue  # went with a parent moved before it
        relative = os.path.relpath(path, workspace)
        target = into / stamp / relative
        n = 1
        while target.exists():
            n += 1
            target = into / f"{stamp}-{n}" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
        moved.append((relative, target))
    return moved


def describe_quarantine(moved: list[tuple[str, Path]]) -> str:
    """What the model and the user read about it."""
    names = ", ".join(f"{relative} (now {target})" for relative, target in moved)
    return (f"vibe-tui moved the git repository data this command created out of the "
            f"workspace: {names}. Commands may not create git repositories, because git "
            "would later run their hooks and settings outside the sandbox. Ask the user "
            "to run git init (or the tool that made it) themselves.")
