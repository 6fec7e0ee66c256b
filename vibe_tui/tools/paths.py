"""Workspace containment: every path a tool touches must resolve inside the workspace."""

from __future__ import annotations

import difflib
import errno
import os
from pathlib import Path
from typing import Any

from vibe_tui.policy.types import is_inside
from vibe_tui.tools.base import ToolContext, ToolError, optional, require
from vibe_tui.tools.file_walk import select_files  # the same walk and ignore rules as grep


def resolve_in_workspace(raw: str, workspace: Path, cwd: Path | None = None) -> Path:
    """Resolve ``raw`` (relative to ``cwd``, default the workspace) with symlinks followed
    and ``..`` folded; refuse anything that lands outside the workspace root."""
    if not isinstance(raw, str) or raw == "":
        raise ToolError("path must be a non-empty string")
    if "\x00" in raw:
        raise ToolError("path contains a NUL byte")
    root = workspace.resolve()
    base = (cwd or root).resolve()
    candidate = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
    if not candidate.is_absolute():
        candidate = base / candidate
    resolved = _follow_links(candidate, raw)
    if not is_inside(resolved, root):
        raise ToolError(f"'{raw}' is outside the workspace ({root})")
    _refuse_unnameable(resolved, raw)
    return resolved


def _follow_links(candidate: Path, raw: str) -> Path:
    # strict=False: the target may not exist yet (write_file), but every existing link
    # on the way is followed, so a link pointing out is caught.
    try:
        return candidate.resolve(strict=False)
    except RuntimeError:  # how Python before 3.13 reports a symlink loop
        raise ToolError(f"'{raw}' goes through a symlink loop") from None
    except OSError as exc:
        raise ToolError(f"'{raw}' cannot be resolved: {exc.strerror}") from None


def _refuse_unnameable(path: Path, raw: str) -> None:
    """Refuse a path no file operation could use, before a tool trips over it with an
    OSError: a loop the resolution did not report (newer Pythons leave the loop in the
    path), or a name longer than the file system takes (also below a missing folder,
    which write_file would create before failing)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ToolError(f"'{raw}' goes through a symlink loop") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise ToolError(f"'{_shortened(raw)}' is too long a file name") from None
    if len(os.fsencode(path)) >= _PATH_MAX or any(
            len(os.fsencode(part)) > _NAME_MAX for part in path.parts):
        raise ToolError(f"'{_shortened(raw)}' is too long a file name")


# Linux's limits; a file system with smaller ones still answers ENAMETOOLONG above.
_NAME_MAX = 255
_PATH_MAX = 4096


def _shortened(raw: str, keep: int = 80) -> str:
    return raw if len(raw) <= keep else raw[:keep] + "..."


# The schema of a tool's ``path`` argument, read by ``resolve_path_argument``.
PATH_PARAMETER = {"type": "string", "description": "Path relative to the workspace root."}


def resolve_path_argument(args: dict[str, Any], ctx: ToolContext,
                          default: str | None = None) -> tuple[Path, str]:
    """The ``path`` argument of a file tool, resolved in the workspace, and as shown."""
    raw = optional(args, "path", str, default) if default else require(args, "path")
    path = resolve_in_workspace(raw, ctx.workspace, ctx.cwd)
    return path, display_path(path, ctx.workspace)


def display_path(path: Path, workspace: Path) -> str:
    """A path as the model and the user should see it: relative to the workspace."""
    try:
        rel = path.relative_to(workspace.resolve())
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else "."


MAX_TOP_LEVEL_SHOWN = 30


def where_instead(path: Path, workspace: Path) -> str:
    """For a path that does not exist, where to look instead: similar names in its
    folder, entries of that name elsewhere in the workspace, or the workspace's top
    level. Small models guess paths (``src/config.py``); real ones get them back on
    track, and a repeated guess meets the same list."""
    folder = path.parent
    if folder.is_dir():
        similar = difflib.get_close_matches(path.name, _names_in(folder), n=3, cutoff=0.6)
        if similar:
            return "similar names: " + ", ".join(display_path(folder / name, workspace)
                                                 for name in similar)
    elsewhere = _same_name_elsewhere(path.name, workspace)
    if elsewhere:
        return f"files named {path.name} in the workspace: {', '.join(elsewhere)}"
    top = sorted(name + "/" if (workspace / name).is_dir() else name
                 for name in _names_in(workspace) if name != ".git")
    shown = ", ".join(top[:MAX_TOP_LEVEL_SHOWN])
    if len(top) > MAX_TOP_LEVEL_SHOWN:
        shown += ", ..."
    return f"the workspace's top level holds: {shown or '(nothing)'}"


def _names_in(folder: Path) -> list[str]:
    try:
        return [entry.name for entry in os.scandir(folder)]
    except OSError:
        return []


def _same_name_elsewhere(name: str, workspace: Path) -> list[str]:
    if not name or any(char in name for char in "*?[]!\\"):
        return []
    return select_files(workspace, workspace, name).files[:3]
