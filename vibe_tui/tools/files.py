"""File tools: read_file, list_dir, write_file and edit_file.

Every path goes through ``resolve_in_workspace`` in ``precheck``, so nothing here
touches a file outside the workspace. Edits keep what the model cannot see: the file's
encoding (UTF-8 or latin-1), BOM, CRLF line endings and mode. They are written
atomically, and an edit or a rewrite that would break the syntax of a file that parsed
cleanly is refused. ``preview`` and ``run`` share one planning function, so the diff shown
in an approval is the diff that lands. ``run_hunks`` lands only the hunks of that diff the
user kept, and tells the model which ones it rejected.
"""

from __future__ import annotations

import difflib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vibe_tui.code.outline import outline_text
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
from vibe_tui.tools.paths import display_path, resolve_in_workspace, where_instead

MAX_READ_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_LIST_ENTRIES = 500
# Past this a file is a log or a data dump; reading it whole would stall the session.
MAX_FILE_BYTES = 64 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192
UTF8_BOM = b"\xef\xbb\xbf"
# Bytes that do not occur in text files of any single-byte encoding we would meet.
_CONTROL_BYTES = frozenset(range(0x20)) - frozenset(b"\t\n\r\f\b\x1b") | {0x7F}
_SKIPPED_ENTRIES = frozenset({".git"})
_PATH_PARAM = {"type": "string", "description": "Path relative to the workspace root."}


# ---------------------------------------------------------------- text files on disk


class BinaryFileError(ToolError):
    """The file holds binary data, which no tool here reads or rewrites as text."""


@dataclass(frozen=True)
class TextFile:
    """A text file as read, with what is needed to write it back the same way."""

    text: str  # decoded, BOM removed, line endings as on disk
    encoding: str  # "utf-8" or "latin-1"
    bom: bool
    mode: int
    size: int
    mtime_ns: int

    @property
    def crlf(self) -> bool:
        # Only a file whose every newline is CRLF is edited as LF and written back as
        # CRLF; a mixed file is edited as it is, so untouched lines keep their endings.
        newlines = self.text.count("\n")
        return newlines > 0 and newlines == self.text.count("\r\n")

    def working_text(self) -> str:
        """The text the model reads and edits: LF line endings for a CRLF file."""
        return self.text.replace("\r\n", "\n") if self.crlf else self.text


def _decode(raw: bytes) -> tuple[str, str, bool] | None:
    """(text, encoding, bom), or None for binary content."""
    if b"\x00" in raw[:BINARY_SNIFF_BYTES]:
        return None
    bom = raw.startswith(UTF8_BOM)
    try:
        return raw[len(UTF8_BOM) if bom else 0 :].decode("utf-8"), "utf-8", bom
    except UnicodeDecodeError:
        pass
    # latin-1 decodes any byte string, so "not UTF-8" alone does not make a file
    # text; many control bytes mean it is binary.
    sample = raw[:BINARY_SNIFF_BYTES]
    controls = sum(byte in _CONTROL_BYTES for byte in sample)
    if controls > len(sample) // 10:
        return None
    return raw.decode("latin-1"), "latin-1", False


def _not_found(path: Path, rel: str, workspace: Path) -> ToolError:
    folder = path.parent
    if not folder.is_dir():
        message = (f"file not found: {rel} (folder {display_path(folder, workspace)} "
                   f"does not exist)")
    else:
        message = f"file not found: {rel}"
    return ToolError(f"{message}; {where_instead(path, workspace)}")


def _stat_regular_file(path: Path, rel: str, workspace: Path) -> os.stat_result:
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise _not_found(path, rel, workspace) from None
    except OSError as error:
        raise ToolError(f"cannot read {rel}: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{rel} is a directory, not a file; use list_dir to see its entries")
    if not stat.S_ISREG(info.st_mode):
        # Reading a FIFO or a device would block or never end.
        raise ToolError(f"{rel} is not a regular file")
    return info


def load_text_file(path: Path, rel: str, workspace: Path) -> TextFile:
    """Read and decode a text file; ToolError for missing, directory or binary."""
    info = _stat_regular_file(path, rel, workspace)
    if info.st_size > MAX_FILE_BYTES:
        raise ToolError(
            f"{rel} is too large ({info.st_size:,} bytes); use a search tool or a shell "
            "command to look at parts of it"
        )
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ToolError(f"cannot read {rel}: {error.strerror}") from None
    decoded = _decode(raw)
    if decoded is None:
        raise BinaryFileError(f"{rel} is a binary file ({len(raw):,} bytes); only text files can be read")
    text, encoding, bom = decoded
    return TextFile(text, encoding, bom, info.st_mode, len(raw), info.st_mtime_ns)


def _encode_like(text: str, original: TextFile | None) -> bytes:
    """Bytes for ``text`` (working form) in the original file's encoding, BOM and
    line endings; plain UTF-8 for a new file. May raise UnicodeEncodeError."""
    if original is None:
        return text.encode("utf-8")
    if original.crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode(original.encoding)
    return UTF8_BOM + data if original.bom else data


def write_atomic(path: Path, data: bytes, mode: int | None) -> int:
    """Write through a temp file in the same folder and os.replace, so a reader never
    sees half a file. Keeps ``mode`` when given. Returns the new mtime_ns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    # 0o666 and the umask, as for any new file (mkstemp would make it 0o600).
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, stat.S_IMODE(mode))
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return path.stat().st_mtime_ns


# ---------------------------------------------------------------- lines and diffs


def split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them: split on LF only (str.splitlines also splits
    on form feeds and U+2028, which would shift line numbers), CR dropped."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline at the end of the last line, or an empty file
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _lines_keepends(text: str) -> list[str]:
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(old: str, new: str, rel: str, created: bool = False) -> str:
    """A git-style unified diff (a/REL, b/REL; /dev/null for a new file)."""
    from_name = "/dev/null" if created else f"a/{rel}"
    hunks = difflib.unified_diff(_lines_keepends(old), _lines_keepends(new), from_name, f"b/{rel}")
    # A last line without newline needs git's marker, or the diff does not parse.
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in hunks
    )


def decode_text(raw: bytes) -> tuple[str, str, bool] | None:
    """(text, encoding, bom) of a file's bytes, or None for binary content."""
    return _decode(raw)


def encode_text(text: str, encoding: str, bom: bool) -> bytes:
    """Bytes for ``text`` as ``decode_text`` found it; UTF-8 when the encoding cannot
    hold it."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode("utf-8")
    return UTF8_BOM + data if bom else data


# ---------------------------------------------------------------- hunks
#
# A hunk is one group of changes with its context, exactly as ``unified_diff`` groups
# them (difflib's grouped opcodes with three lines of context), so hunk ``i`` of a diff
# a view shows is group ``i`` here.

CONTEXT_LINES = 3


def _grouped(old: str, new: str) -> tuple[list[str], list[str], list[list[tuple]]]:
    before, after = _lines_keepends(old), _lines_keepends(new)
    matcher = difflib.SequenceMatcher(None, before, after)
    return before, after, list(matcher.get_grouped_opcodes(CONTEXT_LINES))


def apply_hunks(old: str, new: str, keep: set[int] | list[int]) -> str:
    """``old`` with only the hunks of the ``old`` -> ``new`` diff whose index is in
    ``keep``: every line outside those hunks is as in ``old``."""
    before, after, groups = _grouped(old, new)
    kept = set(keep)
    result: list[str] = []
    position = 0
    for index, group in enumerate(groups):
        if index not in kept:
            continue
        for tag, i1, i2, j1, j2 in group:
            if tag != "equal":
                result.extend(before[position:i1])
                result.extend(after[j1:j2])
                position = i2
    result.extend(before[position:])
    return "".join(result)


def split_hunks(diff: str) -> list[str]:
    """The text of each hunk of a unified diff, from its ``@@`` line on."""
    hunks: list[list[str]] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
    return ["".join(lines) for lines in hunks]


def _numbers(indexes: list[int]) -> str:
    """1-based hunk numbers for a reader: "1", "1 and 3", "1, 2 and 4"."""
    shown = [str(index + 1) for index in indexes]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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
        data = _encode_like(text, change.original)
    except UnicodeEncodeError:  # write_file may bring characters the old encoding lacks
        data = _encode_like(text, None)
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


def _resolve(args: dict[str, Any], ctx: ToolContext, default: str | None = None) -> tuple[Path, str]:
    raw = optional(args, "path", str, default) if default else require(args, "path")
    path = resolve_in_workspace(raw, ctx.workspace, ctx.cwd)
    return path, display_path(path, ctx.workspace)


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
            "path": _PATH_PARAM,
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
        path, _ = _resolve(args, ctx)
        offset, limit = _read_window(args)
        return ToolRequest(self.name, self.kind, {**args, "offset": offset, "limit": limit}, paths=(path,))

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        path, rel = _resolve(args, ctx)
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
        path, _ = _resolve(args, ctx, default=".")
        return ToolRequest(self.name, self.kind, args, paths=(path,))

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        path, rel = _resolve(args, ctx, default=".")
        return ToolOutput(await in_thread(list_entries, path, rel, ctx.workspace), meta={"path": rel})


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
        data = _encode_like(new_text, original)
        note = ""
    except UnicodeEncodeError:
        # The whole file is replaced, so switching it to UTF-8 mixes nothing.
        data = _encode_like(new_text, None)
        note = f"; saved as UTF-8 (it was {original.encoding})"
    if old_text == new_text:
        summary = f"{rel} already had this content; nothing changed"
    else:
        _guard_syntax(path, rel, old_text, new_text, verb="write")
        summary = f"wrote {rel} ({line_count}){note}"
    diff = unified_diff(old_text, new_text, rel)
    return FileChange(path, rel, original, data, diff, summary, _syntax_warning(path, new_text),
                      old_text, new_text)


class WriteFileTool:
    name = "write_file"
    kind: ToolKind = "edit"
    description = (
        "Create a new file, or replace ALL of an existing file's content, with the given text. "
        "Creates missing folders. To change part of an existing file use edit_file instead."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": _PATH_PARAM,
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        path, _ = _resolve(args, ctx)
        _refuse_placeholder(require(args, "content"), "content")
        return ToolRequest(self.name, self.kind, args, paths=(path,))

    async def _plan(self, args: dict[str, Any], ctx: ToolContext) -> FileChange:
        # Here rather than in precheck, which sees a whole batch of calls before any runs:
        # a read_file earlier in the same answer counts.
        path, rel = _resolve(args, ctx)
        _refuse_if_changed_since_read(path, rel, ctx)
        change = await in_thread(plan_write, path, rel, require(args, "content"), ctx.workspace)
        if change.original is not None:
            _refuse_unread_replacement(path, rel, ctx)
        return change

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return (await self._plan(args, ctx)).diff

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self._land(await self._plan(args, ctx), ctx)

    async def run_hunks(self, args: dict[str, Any], ctx: ToolContext, hunks: list[int],
                        reviewed_diff: str | None) -> ToolOutput:
        """Write only the hunks the user kept (indexes into the reviewed diff)."""
        change = await self._plan(args, ctx)
        return await self._land(await in_thread(keep_hunks, change, hunks, reviewed_diff), ctx)

    async def _land(self, change: FileChange, ctx: ToolContext) -> ToolOutput:
        if change.original is None or change.diff:  # identical content: leave mtime alone
            ctx.read_files[change.path] = await in_thread(_write_change, change)
        # A new file's diff is its whole content, which the model just wrote: not repeated.
        text = change.result_text(show_diff=change.original is not None)
        return ToolOutput(text, diff=change.diff, meta={"path": change.rel})


# ---------------------------------------------------------------- edit_file: planning


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
    """The note that stands for a cleared tool result is not file content (the local model
    wrote "[cleared: ...]" over a whole JSON file)."""
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
        data = _encode_like(new_text, original)
    except UnicodeEncodeError as error:
        raise ToolError(
            f"{rel} is {original.encoding} text and new_string has characters it cannot hold "
            f"({error.object[error.start : error.end]!r}); use write_file to rewrite it as UTF-8"
        ) from None
    where = "line" if len(lines) == 1 else "lines"
    summary = f"edited {rel}: {_plural(len(offsets), 'replacement')} at {where} {_line_list(lines)}"
    return FileChange(path, rel, original, data, unified_diff(text, new_text, rel), summary,
                      old_text=text, new_text=new_text)


class EditFileTool:
    name = "edit_file"
    kind: ToolKind = "edit"
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
            "path": _PATH_PARAM,
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
        path, _ = _resolve(args, ctx)
        _edit_args(args)
        return ToolRequest(self.name, self.kind, args, paths=(path,))

    async def _plan(self, args: dict[str, Any], ctx: ToolContext) -> FileChange:
        path, rel = _resolve(args, ctx)
        _refuse_if_changed_since_read(path, rel, ctx)
        if path not in ctx.read_files:
            # A missing, binary or oversized file gets its own message first.
            await in_thread(load_text_file, path, rel, ctx.workspace)
            _refuse_unread_edit(rel)
        return await in_thread(plan_edit, path, rel, args, ctx.workspace)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return (await self._plan(args, ctx)).diff

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return await self._land(await self._plan(args, ctx), ctx)

    async def run_hunks(self, args: dict[str, Any], ctx: ToolContext, hunks: list[int],
                        reviewed_diff: str | None) -> ToolOutput:
        """Write only the hunks the user kept (indexes into the reviewed diff)."""
        change = await self._plan(args, ctx)
        return await self._land(await in_thread(keep_hunks, change, hunks, reviewed_diff), ctx)

    async def _land(self, change: FileChange, ctx: ToolContext) -> ToolOutput:
        ctx.read_files[change.path] = await in_thread(_write_change, change)
        return ToolOutput(change.result_text(show_diff=True), diff=change.diff, meta={"path": change.rel})


def _refuse_unread_replacement(path: Path, rel: str, ctx: ToolContext) -> None:
    """write_file over a file the model never saw throws away what it did not know was
    there (the local model replaced a 21-line config with the three keys it was asked to
    change): it must read the file first, as for edit_file."""
    if path in ctx.read_files:
        return
    raise ToolError(f"{rel} already exists and you have not read it: write_file replaces the "
                    "whole file. Read it with read_file first; to change part of it, use "
                    "edit_file")


def _refuse_unread_edit(rel: str) -> None:
    """An edit written from a guess lands in the wrong place or not at all (the local model
    edited JSON keys it had never seen, by names it invented): read the file first."""
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


FILE_TOOLS = [ReadFileTool(), ListDirTool(), WriteFileTool(), EditFileTool()]
