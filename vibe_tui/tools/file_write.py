"""The file tools that change files: ``write_file`` and ``edit_file``.

Edits keep what the model cannot see: the file's encoding (UTF-8 or latin-1), BOM, CRLF
line endings and mode. They are written atomically, and an edit or a rewrite that would
break the syntax of a file that parsed cleanly is refused. ``preview`` and ``run`` share
one planning function, so the diff shown in an approval is the diff that lands.
``run_hunks`` lands only the hunks of that diff the user kept, and tells the model which
ones it rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vibe_tui.code.syntax import syntax_errors
from vibe_tui.policy.types import ToolKind, ToolRequest
from vibe_tui.tools.base import (
    CLEARED_NOTE_PREFIX,
    ToolContext,
    ToolError,
    ToolOutput,
    in_thread,
    optional,
    require,
)
from vibe_tui.tools.edit_diagnosis import describe_missing, line_of
from vibe_tui.tools.hunks import apply_hunks, split_hunks
from vibe_tui.tools.paths import PATH_PARAMETER, display_path, resolve_path_argument
from vibe_tui.tools.text_file import (
    BinaryFileError,
    TextFile,
    encode_like,
    load_text_file,
    split_lines,
    unified_diff,
    write_atomic,
)

# ---------------------------------------------------------------- planned changes


@dataclass(frozen=True)
class FileChange:
    """What a write or an edit will do, computed before anything is written."""

    path: Path
    rel: str
    original: TextFile | None  # None: the file is new
    data: bytes
    diff: str
    summary: str
    warning: str = ""  # appended after the diff in the result
    old_text: str = ""  # working text before and after: what the diff's hunks split
    new_text: str = ""

    def result_text(self, show_diff: bool) -> str:
        """Summary, then the diff if asked for, then the warning, a blank line apart
        so the warning is not read as part of the diff."""
        parts = [self.summary]
        if show_diff and self.diff:
            parts.append(self.diff.rstrip("\n"))
        if self.warning:
            parts.append(self.warning)
        return "\n\n".join(parts)


def _write_change(change: FileChange) -> int:
    mode = change.original.mode if change.original else None
    try:
        return write_atomic(change.path, change.data, mode)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(f"cannot write {change.rel}: a parent of it is a file, not a folder") from None
    except OSError as error:
        raise ToolError(f"cannot write {change.rel}: {error.strerror}") from None


def keep_hunks(change: FileChange, keep: list[int], reviewed_diff: str | None) -> FileChange:
    """The change with only the hunks the user kept. Refused when the diff is no longer
    the one the user reviewed: hunk numbers would then name other lines."""
    if reviewed_diff is not None and change.diff != reviewed_diff:
        raise ToolError(
            f"{change.rel} changed on disk after the user reviewed this change, so the hunks "
            "they picked no longer apply; nothing was written. Read the file again."
        )
    hunks = split_hunks(change.diff)
    kept = sorted({index for index in keep if 0 <= index < len(hunks)})
    if len(kept) == len(hunks):
        return change
    rejected = [index for index in range(len(hunks)) if index not in kept]
    text = apply_hunks(change.old_text, change.new_text, kept)
    try:
        data = encode_like(text, change.original)
    except UnicodeEncodeError:  # write_file may bring characters the old encoding lacks
        data = encode_like(text, None)
    diff = unified_diff(change.old_text, text, change.rel, created=change.original is None)
    summary = (
        f"{change.rel}: the user applied {_plural(len(kept), 'hunk')} of {len(hunks)}"
        + (f" (hunk {_numbers(kept)})" if kept else "")
        + f" and rejected hunk {_numbers(rejected)}. The file now holds exactly the "
        "applied part of your change (diff below); the rejected part is NOT in the file."
    )
    rejected_text = "\n".join(
        f"Rejected hunk {index + 1} (not applied):\n{hunks[index].rstrip(chr(10))}"
        for index in rejected
    )
    warning = "\n\n".join(part for part in (rejected_text, _syntax_warning(change.path, text)) if part)
    return FileChange(change.path, change.rel, change.original, data, diff, summary, warning,
                      change.old_text, text)


def _numbers(indexes: list[int]) -> str:
    """1-based hunk numbers for a reader: "1", "1 and 3", "1, 2 and 4"."""
    shown = [str(index + 1) for index in indexes]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class _ChangeTool:
    """What write_file and edit_file share: one plan (``_plan``) feeds the approval's
    preview, the run and a partial run, so the diff shown is the diff that lands;
    ``_land`` writes it and words the result."""

    kind: ToolKind = "edit"

    async def _plan(self, args: dict[str, Any], ctx: ToolContext) -> FileChange:
        raise NotImplementedError

    async def _land(self, change: FileChange, ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return (await self._plan(args, ctx)).diff

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self._land(await self._plan(args, ctx), ctx)

    async def run_hunks(self, args: dict[str, Any], ctx: ToolContext, hunks: list[int],
                        reviewed_diff: str | None) -> ToolOutput:
        """Write only the hunks the user kept (indexes into the reviewed diff)."""
        change = await self._plan(args, ctx)
        return await self._land(await in_thread(keep_hunks, change, hunks, reviewed_diff), ctx)


# ---------------------------------------------------------------- write_file


def _existing_for_write(path: Path, rel: str, workspace: Path) -> TextFile | None:
    if not path.exists():
        return None
    if path.is_dir():
        raise ToolError(f"{rel} is a directory; write_file needs a file path")
    try:
        return load_text_file(path, rel, workspace)
    except BinaryFileError:
        raise ToolError(f"{rel} is a binary file; write_file will not replace it with text") from None


def _check_parent_folder(path: Path, rel: str, workspace: Path) -> None:
    """Missing folders are created, but not through a file sitting where one belongs."""
    for ancestor in path.parents:
        if ancestor.exists():
            if not ancestor.is_dir():
                where = display_path(ancestor, workspace)
                raise ToolError(f"cannot write {rel}: {where} is a file, not a folder")
            return


def _syntax_warning(path: Path, text: str) -> str:
    problems = syntax_errors(str(path), text)
    if not problems:
        return ""
    first = problems[0]
    return (
        f"warning: the new content has syntax errors at line {first.line} col {first.column} "
        f"({first.description})"
    )


def plan_write(path: Path, rel: str, content: str, workspace: Path) -> FileChange:
    """The change write_file makes: shared by preview and run."""
    original = _existing_for_write(path, rel, workspace)
    _check_parent_folder(path, rel, workspace)
    line_count = _plural(len(split_lines(content)), "line")
    if original is None:
        diff = unified_diff("", content, rel, created=True)
        summary = f"created {rel} ({line_count})"
        return FileChange(path, rel, None, content.encode("utf-8"), diff, summary,
                          _syntax_warning(path, content), "", content)
    new_text = content.replace("\r\n", "\n") if original.crlf else content
    old_text = original.working_text()
    try:
        data = encode_like(new_text, original)
        note = ""
    except UnicodeEncodeError:
        # The whole file is replaced, so switching it to UTF-8 mixes nothing.
        data = encode_like(new_text, None)
        note = f"; saved as UTF-8 (it was {original.encoding})"
    if old_text == new_text:
        summary = f"{rel} already had this content; nothing changed"
    else:
        _guard_syntax(path, rel, old_text, new_text, verb="write")
        summary = f"wrote {rel} ({line_count}){note}"
    diff = unified_diff(old_text, new_text, rel)
    return FileChange(path, rel, original, data, diff, summary, _syntax_warning(path, new_text),
                      old_text, new_text)


class WriteFileTool(_ChangeTool):
    name = "write_file"
    description = (
        "Create a new file, or replace ALL of an existing file's content, with the given text. "
        "Creates missing folders. To change part of an existing file use edit_file instead."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        path, _ = resolve_path_argument(args, ctx)
        _refuse_placeholder(require(args, "content"), "content")
        return ToolRequest(self.name, self.kind, args, paths=(path,))

    async def _plan(self, args: dict[str, Any], ctx: ToolContext) -> FileChange:
        # Here rather than in precheck, which sees a whole batch of calls before any runs:
        # a read_file earlier in the same answer counts.
        path, rel = resolve_path_argument(args, ctx)
        _refuse_if_changed_since_read(path, rel, ctx)
        change = await in_thread(plan_write, path, rel, require(args, "content"), ctx.workspace)
        if change.original is not None:
            _refuse_unread_replacement(path, rel, ctx)
        return change

    async def _land(self, change: FileChange, ctx: ToolContext) -> ToolOutput:
        if change.original is None or change.diff:  # identical content: leave mtime alone
            ctx.read_files[change.path] = await in_thread(_write_change, change)
        # A new file's diff is its whole content, which the model just wrote: not repeated.
        text = change.result_text(show_diff=change.original is not None)
        return ToolOutput(text, diff=change.diff, meta={"path": change.rel})


# ---------------------------------------------------------------- edit_file


def _occurrences(text: str, old: str) -> list[int]:
    """Start offsets of non-overlapping matches, as str.replace would replace them."""
    offsets, start = [], text.find(old)
    while start >= 0:
        offsets.append(start)
        start = text.find(old, start + len(old))
    return offsets


def _line_list(lines: list[int]) -> str:
    shown = ", ".join(str(line) for line in lines[:10])
    return shown + (", ..." if len(lines) > 10 else "")


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """old_string and new_string with the line endings the text uses. A CRLF-only file
    is already LF here; this covers models sending CRLF, and files with mixed endings."""
    if "\r" not in text:
        return old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if "\n" in old and "\r\n" not in old and old not in text:
        crlf_old = old.replace("\n", "\r\n")
        if crlf_old in text:
            return crlf_old, new.replace("\r\n", "\n").replace("\n", "\r\n")
    return old, new


def _guard_syntax(path: Path, rel: str, old_text: str, new_text: str, verb: str = "edit") -> None:
    after = syntax_errors(str(path), new_text)
    if not after:
        return
    # Only a file that parsed cleanly is protected: a broken one may be mid-fix.
    if syntax_errors(str(path), old_text) != []:
        return
    first = after[0]
    raise ToolError(
        f"{verb} refused: it would break the syntax of {rel} at line {first.line} column "
        f"{first.column} ({first.description}); the file is unchanged"
    )


def _edit_args(args: dict[str, Any]) -> tuple[str, str, bool]:
    old = require(args, "old_string")
    new = require(args, "new_string")
    replace_all = optional(args, "replace_all", bool, False)
    if old == "":
        raise ToolError("old_string is empty; to create a file or replace all of its content use write_file")
    if old == new:
        raise ToolError("old_string and new_string are identical; there is nothing to change")
    _refuse_placeholder(new, "new_string")
    return old, new, replace_all


def _refuse_placeholder(text: str, field: str) -> None:
    """The note that stands for a cleared tool result is not file content, though a model
    may copy it into a file as if it were."""
    line = text.strip()
    if line.startswith(CLEARED_NOTE_PREFIX.rstrip()) and line.endswith("]") and "\n" not in line:
        raise ToolError(f"{field} is the note that stands for a cleared tool result, not the "
                        "file's content: read the file again and write the real text")


def plan_edit(path: Path, rel: str, args: dict[str, Any], workspace: Path) -> FileChange:
    """The change edit_file makes: shared by preview and run."""
    old, new, replace_all = _edit_args(args)
    original = load_text_file(path, rel, workspace)
    text = original.working_text()
    old, new = _match_line_endings(text, old, new)
    offsets = _occurrences(text, old)
    if not offsets:
        raise ToolError(describe_missing(text, old, rel))
    lines = [line_of(text, offset) for offset in offsets]
    if len(offsets) > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {len(offsets)} times in {rel} (lines {_line_list(lines)}); "
            "add context to make it unique or set replace_all"
        )
    new_text = text.replace(old, new)  # every offset found is replaced: one or all
    if new_text == text:
        raise ToolError(f"the edit would leave {rel} unchanged")
    _guard_syntax(path, rel, text, new_text)
    try:
        data = encode_like(new_text, original)
    except UnicodeEncodeError as error:
        raise ToolError(
            f"{rel} is {original.encoding} text and new_string has characters it cannot hold "
            f"({error.object[error.start : error.end]!r}); use write_file to rewrite it as UTF-8"
        ) from None
    where = "line" if len(lines) == 1 else "lines"
    summary = f"edited {rel}: {_plural(len(offsets), 'replacement')} at {where} {_line_list(lines)}"
    return FileChange(path, rel, original, data, unified_diff(text, new_text, rel), summary,
                      old_text=text, new_text=new_text)


class EditFileTool(_ChangeTool):
    name = "edit_file"
    description = (
        "Replace old_string with new_string in an existing file you have read. old_string is "
        "copied exactly from the file (indentation, quotes and commas; no line numbers) and "
        "occurs once (add nearby lines, or set replace_all). Example, for the JSON line "
        "`  \"port\": 80,`: old_string `\"port\": 80,`, new_string `\"port\": 8080,`. "
        "To create a file use write_file."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "old_string": {"type": "string", "description": "Exact text to replace, copied from the file."},
            "new_string": {"type": "string", "description": "Text to put in its place."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence instead of exactly one (default false).",
            },
        },
        "required": ["path", "old_string", "new_string"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        path, _ = resolve_path_argument(args, ctx)
        _edit_args(args)
        return ToolRequest(self.name, self.kind, args, paths=(path,))

    async def _plan(self, args: dict[str, Any], ctx: ToolContext) -> FileChange:
        path, rel = resolve_path_argument(args, ctx)
        _refuse_if_changed_since_read(path, rel, ctx)
        if path not in ctx.read_files:
            # A missing, binary or oversized file gets its own message first.
            await in_thread(load_text_file, path, rel, ctx.workspace)
            _refuse_unread_edit(rel)
        return await in_thread(plan_edit, path, rel, args, ctx.workspace)

    async def _land(self, change: FileChange, ctx: ToolContext) -> ToolOutput:
        ctx.read_files[change.path] = await in_thread(_write_change, change)
        return ToolOutput(change.result_text(show_diff=True), diff=change.diff, meta={"path": change.rel})


def _refuse_unread_replacement(path: Path, rel: str, ctx: ToolContext) -> None:
    """write_file over a file the model never saw throws away what it did not know was
    there: it must read the file first, as for edit_file."""
    if path in ctx.read_files:
        return
    raise ToolError(f"{rel} already exists and you have not read it: write_file replaces the "
                    "whole file. Read it with read_file first; to change part of it, use "
                    "edit_file")


def _refuse_unread_edit(rel: str) -> None:
    """An edit written from a guess (names the model never saw, invented) lands in the
    wrong place or not at all: read the file first."""
    raise ToolError(f"you have not read {rel} yet: read it with read_file first, then copy "
                    "old_string exactly from what you read")


def _refuse_if_changed_since_read(path: Path, rel: str, ctx: ToolContext) -> None:
    """An edit planned on what the model read must not land on what someone else wrote
    since (the user in their editor, a formatter, a command): it reads the file again."""
    read_at = ctx.read_files.get(path)
    if read_at is None:
        return
    try:
        now = path.stat().st_mtime_ns
    except OSError:
        return  # gone: plan_edit says so
    if now != read_at:
        raise ToolError(f"{rel} changed on disk after you last read it (the user or a program "
                        "wrote it); read it again with read_file, then make your edit")
