"""Which repository git would use, found the way git's own discovery finds it.

Starting in a folder, git looks for ``.git`` (a folder, a ``gitdir:`` file or a link) and
then for the folder itself being a bare repository (``HEAD``, ``objects``, ``refs``), and
moves up one folder at a time. The workspace's own repository (at its root, or above it)
is the user's; one found below the root came with the files (a vendored project, a bare
repository committed as a folder, one a command or an edit made), and its settings are
whoever wrote them.
"""

from __future__ import annotations

import os
from pathlib import Path

BARE_MARKERS = ("HEAD", "objects", "refs")


def _is_bare(folder: str) -> bool:
    return (os.path.isfile(os.path.join(folder, "HEAD"))
            and os.path.isdir(os.path.join(folder, "objects"))
            and os.path.isdir(os.path.join(folder, "refs")))


def unexpected_repository(start: Path, workspace: Path) -> str | None:
    """The git folder below the workspace root that git run in ``start`` would use
    (relative to the workspace), or None when it would use the workspace's own (or
    none, or ``start`` is not inside the workspace)."""
    root = os.path.realpath(workspace)
    folder = os.path.realpath(start)
    if not (folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)):
        return None
    while folder != root:
        dot_git = os.path.join(folder, ".git")
        if os.path.lexists(dot_git):
            return os.path.relpath(dot_git, root)
        if _is_bare(folder):
            return os.path.relpath(folder, root)
        folder = os.path.dirname(folder)
    return None
