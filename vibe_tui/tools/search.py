"""The ``grep`` tool: search file contents in the workspace.

Which files are searched is always decided in Python (``vibe_tui.tools.file_walk``:
``.gitignore`` files at every level, hidden entries and ``.git`` skipped, symlinks and
special files skipped, the glob, the file cap). Only the searching itself goes to ripgrep when it is
installed, given that exact list of files; otherwise a pure-Python search runs in a
thread. Sharing the file selection is what keeps the two backends' output identical.

Semantics both backends share: one match per matching line, lines split on ``\\n``; text
is decoded as UTF-8 with invalid bytes replaced (a UTF-16 byte-order mark switches to
UTF-16); a file with a NUL in what was read (checked first in its opening 8 KiB) is
binary and skipped; the pattern uses Python ``re`` syntax (a pattern ripgrep cannot
parse, e.g. a look-ahead, falls back to the Python search).

Paths inside the search are workspace-relative POSIX strings, as the walk gives them.
"""

from __future__ import annotations

import asyncio
import base64
import codecs
import json
import os
import re
import shutil
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vibe_tui.policy.types import ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput, optional, require
from vibe_tui.tools.file_walk import FileSelection, glob_spec, path_order, select_files
from vibe_tui.tools.paths import display_path, resolve_in_workspace, where_instead

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
BINARY_PROBE = 8 * 1024
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Matching lines read per file: one more than we show, so "there were more" is known
# without reading a huge file to the end (ripgrep's -m does the same).
PER_FILE_LIMIT = MAX_MATCHES + 1
# ripgrep gets explicit file lists: small batches first, so a search that fills its
# matches early stops early, growing so a long search starts few processes; each
# command line stays well under ARG_MAX.
RG_FIRST_BATCH = 64
RG_BATCH_FILES = 1_024
RG_BATCH_CHARS = 100_000
# A JSON line carries one matching line; a minified file can make that long.
RG_LINE_LIMIT = 16 * 1024 * 1024

Backend = Literal["auto", "rg", "python"]


# ---------------------------------------------------------------- file selection


def without_denied(files: list[str], ctx: ToolContext) -> list[str]:
    """``files`` less those a ``Read(...)`` deny rule covers: a search over a folder reads
    every file in it, and the policy only saw the folder's name."""
    specifiers = [rule.specifier for rule in _read_rules(ctx.read_deny)]
    if not specifiers:
        return files
    from vibe_tui.policy.rules import path_matches  # tree-sitter: off the start-up path

    workspace = ctx.workspace
    return [rel for rel in files
            if not any(path_matches(spec, workspace / rel, workspace, "deny") or
                       path_matches(spec, Path(os.path.realpath(workspace / rel)), workspace,
                                    "deny") for spec in specifiers)]


def _read_rules(texts: tuple[str, ...]):
    if not texts:
        return
    from vibe_tui.policy.rules import parse_rule

    for text in texts:
        try:
            rule = parse_rule(text)
        except ValueError:
            continue
        if rule.tool_family == "Read" and rule.specifier is not None:
            yield rule


# ---------------------------------------------------------------- matches


@dataclass(frozen=True)
class Match:
    rel: str  # workspace-relative path
    line: int
    text: str  # the line, perhaps with its "\r\n" still on: _render_line strips it


@dataclass
class SearchResult:
    matches: list[Match]
    backend: str

    @property
    def full(self) -> bool:
        return len(self.matches) > MAX_MATCHES


def _render_line(match: Match) -> str:
    text = match.text.rstrip("\r\n")
    if len(text) > MAX_LINE_CHARS:
        text = f"{text[:MAX_LINE_CHARS]} [... {len(text) - MAX_LINE_CHARS} more chars]"
    return f"{match.rel}:{match.line}:{text}"


# ---------------------------------------------------------------- python backend


def search_file(workspace: str, rel: str, regex: re.Pattern[str]) -> list[Match] | None:
    """Matching lines of one file, or None for a binary or unreadable file."""
    found: list[Match] = []
    try:
        for number, text in enumerate(_decoded_lines(os.path.join(workspace, rel)), start=1):
            if "\0" in text:
                return None
            if regex.search(text):
                found.append(Match(rel, number, text))
                if len(found) == PER_FILE_LIMIT:
                    break
    except OSError:
        return None
    return found


def _decoded_lines(path: str) -> Iterator[str]:
    """A file's lines (without the ``\\n``) decoded as ripgrep's ``-E utf-8`` does: a
    UTF-16 byte-order mark selects UTF-16, a UTF-8 one is dropped, and invalid bytes
    become U+FFFD. A NUL in the opening bytes yields one NUL line: binary, and cheap."""
    with open(path, "rb") as handle:
        head = handle.read(BINARY_PROBE)
        if head.startswith(UTF16_BOMS):
            # Rare enough to read whole; the utf-16 codec reads the mark itself.
            text = (head + handle.read()).decode("utf-16", errors="replace")
            yield from text.removesuffix("\n").split("\n") if text else ()
            return
        if b"\0" in head:
            yield "\0"
            return
        handle.seek(len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0)
        for raw in handle:
            yield raw.removesuffix(b"\n").decode("utf-8", errors="replace")


def python_search(workspace: str, files: list[str], regex: re.Pattern[str]) -> SearchResult:
    result = SearchResult([], "python")
    for rel in files:
        result.matches.extend(search_file(workspace, rel, regex) or ())
        if result.full:
            break
    return result


# ---------------------------------------------------------------- ripgrep backend


def _looks_textual(workspace: str, rel: str) -> bool:
    """The Python side's binary probe. ripgrep searches explicitly named binary files to
    the end, so without this a few large binaries (.so, .pyc) would dominate its time."""
    try:
        with open(os.path.join(workspace, rel), "rb") as handle:
            head = handle.read(BINARY_PROBE)
    except OSError:
        return False
    return b"\0" not in head or head.startswith(UTF16_BOMS)


def _batches(rels: list[str]) -> Iterator[list[str]]:
    limit, batch, chars = RG_FIRST_BATCH, [], 0
    for rel in rels:
        if batch and (len(batch) >= limit or chars + len(rel) > RG_BATCH_CHARS):
            yield batch
            limit, batch, chars = min(limit * 2, RG_BATCH_FILES), [], 0
        batch.append(rel)
        chars += len(rel) + 1
    if batch:
        yield batch


def _rg_command(pattern: str, literal: bool, rels: list[str]) -> list[str]:
    return [
        "rg",
        "--json",
        "--no-config",  # the user's RIPGREP_CONFIG_PATH must not change results
        "--no-mmap",  # read buffers: NUL detection covers all that is read
        # Transcode to UTF-8 with invalid bytes as U+FFFD, like the Python side: with
        # raw bytes, ripgrep's "." would not match an invalid byte where Python's does.
        "--encoding",
        "utf-8",
        "--case-sensitive",
        "--max-count",
        str(PER_FILE_LIMIT),
        *(["--fixed-strings"] if literal else []),
        "--regexp",
        pattern,
        "--",
        *rels,
    ]


def _json_text(value: dict[str, Any]) -> str:
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", errors="replace")


def _json_path(value: dict[str, Any]) -> str:
    if "text" in value:
        return value["text"]
    return os.fsdecode(base64.b64decode(value["bytes"]))


async def _rg_batch(
    workspace: str, rels: list[str], pattern: str, literal: bool
) -> list[Match] | None:
    """Matches of one batch of files, in path order; None when ripgrep could not do it
    (a pattern it cannot parse, output we do not understand), so the caller falls back."""
    proc = await asyncio.create_subprocess_exec(
        *_rg_command(pattern, literal, rels),
        cwd=workspace,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=RG_LINE_LIMIT,
    )
    found: list[Match] = []
    per_file: list[list[Match]] = []
    saw_file = False
    try:
        while line := await proc.stdout.readline():
            event = json.loads(line)
            kind, data = event["type"], event["data"]
            if kind == "begin":
                saw_file, found = True, []
            elif kind == "match":
                rel = _json_path(data["path"])
                found.append(Match(rel, data["line_number"], _json_text(data["lines"])))
            elif kind == "end" and data.get("binary_offset") is None and found:
                per_file.append(found)  # a file with a NUL anywhere read is dropped whole
        code = await proc.wait()
    except (ValueError, KeyError):  # a line over the limit, or not the JSON we expect
        return None
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    # 0: matches, 1: none. 2 also when some file was unreadable, which only calls for a
    # fallback when nothing at all was searched (as with a regex parse error).
    if code not in (0, 1) and not saw_file:
        return None
    # ripgrep searches a batch in parallel; put its files back in path order.
    per_file.sort(key=lambda matches: path_order(matches[0].rel))
    return [match for matches in per_file for match in matches]


def rg_reads_alike(pattern: str) -> bool:
    """False for the few patterns both engines accept but read differently; those go to
    the Python search, whose syntax is the contract. Inside a [...] class Rust nests '['
    and takes doubled '-', '&', '~' as set operations where Python sees literals; newer
    ripgrep reads '\\<', '\\>' and '\\b{' as word boundaries where Python sees '<', '>',
    '{'. (Patterns only Python accepts fail in ripgrep and fall back by themselves.)"""
    in_class, i = False, 0
    while i < len(pattern):
        ch, following = pattern[i], pattern[i + 1 : i + 2]
        if ch == "\\":
            if not in_class and (following in ("<", ">") or pattern[i : i + 3] == "\\b{"):
                return False
            i += 2
            continue
        if in_class:
            if ch == "[" or (ch in "-&~" and following == ch):
                return False
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            i += 1 + (following == "^")
            if pattern[i : i + 1] == "]":
                i += 1  # a ']' first in a class is a literal in both
            continue
        i += 1
    return True


async def rg_search(
    workspace: str, files: list[str], pattern: str, literal: bool
) -> SearchResult | None:
    if not literal and not rg_reads_alike(pattern):
        return None
    result = SearchResult([], "rg")
    files = await asyncio.to_thread(lambda: [f for f in files if _looks_textual(workspace, f)])
    for rels in _batches(files):
        found = await _rg_batch(workspace, rels, pattern, literal)
        if found is None:
            return None
        result.matches.extend(found)
        if result.full:
            break
    return result


# ---------------------------------------------------------------- the tool


def _compile(pattern: str, literal: bool) -> re.Pattern[str]:
    try:
        with warnings.catch_warnings():
            # Python warns (FutureWarning) about classes like [[:alpha:]] whose meaning may
            # change; the pattern still works, and a warning on stderr would scribble over
            # the TUI.
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(re.escape(pattern) if literal else pattern)
    except re.error as exc:
        raise ToolError(
            f"invalid regex {pattern!r}: {exc}; pass literal: true to search for the text as is"
        ) from exc


@dataclass
class GrepArgs:
    pattern: str
    literal: bool
    glob: str | None
    root: Path


def _parse(args: dict[str, Any], ctx: ToolContext) -> GrepArgs:
    pattern = require(args, "pattern", str)
    if pattern == "":
        raise ToolError("argument 'pattern' must not be empty")
    literal = optional(args, "literal", bool, False)
    glob = (optional(args, "glob", str, "") or "").strip().removeprefix("./") or None
    if glob:
        try:
            glob_spec(glob)
        except ValueError as exc:  # pathspec's pattern errors are ValueErrors
            raise ToolError(f"invalid glob {glob!r}: {exc}") from exc
    _compile(pattern, literal)
    root = resolve_in_workspace(optional(args, "path", str, "."), ctx.workspace, ctx.cwd)
    return GrepArgs(pattern, literal, glob, root)


def _report(
    result: SearchResult, selection: FileSelection, args: GrepArgs, workspace: Path
) -> str:
    shown = sorted(result.matches, key=lambda m: (path_order(m.rel), m.line))[:MAX_MATCHES]
    lines = [_render_line(m) for m in shown]
    if not lines:
        lines.append(f"no matches for {args.pattern} in {display_path(args.root, workspace)}")
    if result.full:
        lines.append(
            f"[stopped at {MAX_MATCHES} matches; narrow the search with path, glob "
            "or a more specific pattern]"
        )
    if selection.truncated:
        lines.append(
            f"[stopped after {selection.cap} files; files beyond were not searched; narrow the "
            "search with path or glob]"
        )
    return "\n".join(lines)


class GrepTool:
    name = "grep"
    kind = "read"
    description = (
        "Search file contents in the workspace. Prints path:line:content, paths relative "
        "to the workspace, sorted. pattern is a regular expression (Python re syntax); "
        "literal: true searches for the plain text. path is a file or folder (default: the "
        "current directory); glob filters files, e.g. '*.py', 'src/**/*.ts' (relative to "
        "path) or '!*.md' to exclude. Skips .gitignored, hidden and binary files. At most "
        "200 matches and 5000 files; long lines are cut at 300 characters. Example: "
        "grep(pattern=\"def load_config\") searches the whole project; leave path out "
        "unless you know the file exists."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "Regular expression, Python syntax (plain text with literal).",
            },
            "path": {
                "type": "string",
                "description": "File or folder to search; default the current directory.",
            },
            "literal": {"type": "boolean", "description": "Match pattern as plain text."},
            "glob": {
                "type": "string",
                "description": "File filter such as '*.py', 'src/**/*.ts' or '!*.md'.",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }

    def __init__(self, backend: Backend = "auto") -> None:
        # "python" / "rg" force a backend (tests compare them); "auto" uses rg when found.
        # A forced "rg" still falls back to Python when ripgrep cannot run the search.
        self.backend = backend

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        parsed = _parse(args, ctx)
        return ToolRequest(tool=self.name, kind="read", args=args, paths=(parsed.root,))

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        parsed = _parse(args, ctx)
        where = display_path(parsed.root, ctx.workspace)
        if not parsed.root.exists():
            hint = await asyncio.to_thread(where_instead, parsed.root, ctx.workspace)
            raise ToolError(f"no such file or directory: {where}; {hint}")
        if not (parsed.root.is_dir() or parsed.root.is_file()):
            raise ToolError(f"not a regular file or folder: {where}")
        selection = await asyncio.to_thread(select_files, parsed.root, ctx.workspace, parsed.glob)
        selection.files = without_denied(selection.files, ctx)
        result = await self._search(str(ctx.workspace), selection.files, parsed)
        meta = {
            "matches": min(len(result.matches), MAX_MATCHES),
            "files": len(selection.files),
            "backend": result.backend,
        }
        return ToolOutput(_report(result, selection, parsed, ctx.workspace), ok=True, meta=meta)

    async def _search(self, workspace: str, files: list[str], args: GrepArgs) -> SearchResult:
        if self.backend != "python" and shutil.which("rg"):
            try:
                found = await rg_search(workspace, files, args.pattern, args.literal)
            except OSError:
                found = None  # rg vanished or could not start
            if found is not None:
                return found
        regex = _compile(args.pattern, args.literal)
        return await asyncio.to_thread(python_search, workspace, files, regex)


SEARCH_TOOLS = [GrepTool()]
