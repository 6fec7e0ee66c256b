"""Workspace containment: every path a tool touches must resolve inside the workspace."""

from __future__ import annotations

import os
from pathlib import Path

from vibe_tui.tools.base import ToolError


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
    # strict=False: the target may not exist yet (write_file), but every existing link
    # on the way is followed, so a link pointing out is caught.
    resolved = candidate.resolve(strict=False)
    if not is_inside(resolved, root):
        raise ToolError(f"'{raw}' is outside the workspace ({root})")
    return resolved


def is_inside(path: Path, root: Path) -> bool:
    """True when ``path`` is ``root`` or below it; compares whole components, so
    /proj-evil is not inside /proj."""
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def display_path(path: Path, workspace: Path) -> str:
    """A path as the model and the user should see it: relative to the workspace."""
    try:
        rel = path.relative_to(workspace.resolve())
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else "."
