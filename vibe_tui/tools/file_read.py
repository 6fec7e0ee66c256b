"""The reading file tools: ``read_file`` (numbered lines, a window at a time, an outline
first for a long file) and ``list_dir``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vibe_tui.code.outline import outline_text
from vibe_tui.policy.types import ToolKind, ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput, in_thread, optional
from vibe_tui.tools.paths import PATH_PARAMETER, resolve_path_argument, where_instead
from vibe_tui.tools.text_file import load_text_file, split_lines

MAX_READ_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_LIST_ENTRIES = 500
_SKIPPED_ENTRIES = frozenset({".git"})

# ---------------------------------------------------------------- read_file


def _numbered(number: int, line: str) -> str:
    if len(line) > MAX_LINE_CHARS:
        line = f"{line[:MAX_LINE_CHARS]}... [line truncated: {len(line):,} characters]"
    return f"{number:>6}\t{line}"


def _read_footer(first: int, last: int, total: int, encoding: str) -> str:
    where = f"lines {first}-{last} of {total}"
    if last < total:
        where += f"; call read_file with offset={last + 1} to continue"
    else:
        where += "; end of file"
    if encoding != "utf-8":
        where += f"; decoded as {encoding}"
    return f"({where})"


def read_numbered(path: Path, rel: str, offset: int, limit: int, workspace: Path) -> tuple[str, int]:
    """The numbered text read_file returns, and the file's mtime_ns."""
    file = load_text_file(path, rel, workspace)
    lines = split_lines(file.text)
    if not lines:
        return f"({rel} is empty: 0 lines)", file.mtime_ns
    if offset > len(lines):
        raise ToolError(f"offset {offset} is past the end of {rel}, which has {len(lines)} lines")
    last = min(len(lines), offset + limit - 1)
    body = "\n".join(_numbered(number, lines[number - 1]) for number in range(offset, last + 1))
    # A file longer than one read starts with its outline, so the model can aim the
    # next offset instead of paging through.
    outline = outline_text(rel, file.text, len(lines)) if offset == 1 and len(lines) > MAX_READ_LINES else ""
    return f"{outline}{body}\n{_read_footer(offset, last, len(lines), file.encoding)}", file.mtime_ns


class ReadFileTool:
    name = "read_file"
    kind: ToolKind = "read"
    description = (
        "Read a text file. Returns numbered lines ('number<TAB>text'; the numbers are not "
        f"part of the file), at most {MAX_READ_LINES} per call: for longer files, call again "
        "with offset to read on. Read a file before editing it. For a folder use list_dir."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "First line to read, 1-based (default 1).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": f"Most lines to return (default and maximum {MAX_READ_LINES}).",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        path, _ = resolve_path_argument(args, ctx)
        offset, limit = _read_window(args)
        return ToolRequest(self.name, self.kind, {**args, "offset": offset, "limit": limit}, paths=(path,))

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        path, rel = resolve_path_argument(args, ctx)
        offset, limit = _read_window(args)
        text, mtime_ns = await in_thread(read_numbered, path, rel, offset, limit, ctx.workspace)
        ctx.read_files[path] = mtime_ns
        return ToolOutput(text, meta={"path": rel})


def _read_window(args: dict[str, Any]) -> tuple[int, int]:
    offset = optional(args, "offset", int, 1)
    limit = optional(args, "limit", int, MAX_READ_LINES)
    if offset < 1:
        raise ToolError("offset must be 1 or more (the first line is 1)")
    if limit < 1:
        raise ToolError("limit must be 1 or more")
    # More than this floods the context; the footer says how to read on.
    return offset, min(limit, MAX_READ_LINES)


# ---------------------------------------------------------------- list_dir


def _entry_label(entry: os.DirEntry) -> str:
    try:
        is_dir = entry.is_dir()  # follows symlinks; a broken link is not a directory
    except OSError:
        is_dir = False
    return entry.name + "/" if is_dir else entry.name


def list_entries(path: Path, rel: str, workspace: Path) -> str:
    """The text list_dir returns."""
    if path.is_file():
        raise ToolError(f"{rel} is a file, not a directory; use read_file to read it")
    try:
        with os.scandir(path) as entries:
            labels = [_entry_label(entry) for entry in entries if entry.name not in _SKIPPED_ENTRIES]
    except (FileNotFoundError, NotADirectoryError):
        raise ToolError(f"directory not found: {rel}; {where_instead(path, workspace)}") from None
    except OSError as error:
        raise ToolError(f"cannot list {rel}: {error.strerror}") from None
    if not labels:
        return f"{rel} is empty"
    labels.sort(key=lambda label: (label.lower(), label))
    shown = labels[:MAX_LIST_ENTRIES]
    count = "1 entry" if len(labels) == 1 else f"{len(labels)} entries"
    text = f"{rel}: {count}\n" + "\n".join(shown)
    hidden = len(labels) - len(shown)
    if hidden:
        text += f"\n... and {hidden} more entries not shown; list a subfolder to see fewer at once"
    return text


class ListDirTool:
    name = "list_dir"
    kind: ToolKind = "read"
    description = (
        "List the files and folders in a directory (folders end with '/'; .git is left out). "
        "Use it to find your way around the project before reading files. "
        "Default path is the workspace root."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Directory, relative to the workspace root (default '.')."}
        },
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        path, _ = resolve_path_argument(args, ctx, default=".")
        return ToolRequest(self.name, self.kind, args, paths=(path,))

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        path, rel = resolve_path_argument(args, ctx, default=".")
        return ToolOutput(await in_thread(list_entries, path, rel, ctx.workspace), meta={"path": rel})
