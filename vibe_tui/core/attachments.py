"""What goes to the model with the user's next message besides their words: the files and
folders they name with ``@path``, and the output of the commands they ran with ``!``.

The door: ``Attachments.shell_ran`` (the view ran a ``!command``) and ``take(text)`` (a
turn starts with ``text``), which returns the context to send before the words and the
lines that tell the user what went with them. The context lands in the turn's
``UserMessage``, so it is in the log and a resumed session sends it again.

It faces whatever the user typed: a mention may name a secret, a path outside the
workspace, a FIFO or a huge log. Paths resolve as the file tools resolve them and never
leave the workspace; a file the policy denies reading is never opened; a file is read up
to a bound and sent up to a smaller one; a mention that attaches nothing gets a one-line
note instead, for the user and the model alike.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vibe_tui.code.outline import outline
from vibe_tui.policy.types import Decision, ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.file_read import list_entries
from vibe_tui.tools.paths import display_path, resolve_in_workspace
from vibe_tui.tools.text_file import BinaryFileError, load_text_file, split_lines

# A file up to this is sent whole; a longer one as its head and an outline of the rest.
WHOLE_MAX_LINES = 400
WHOLE_MAX_BYTES = 24 * 1024
HEAD_MAX_LINES = 200
HEAD_MAX_BYTES = 12 * 1024
OUTLINE_MAX_BYTES = 8 * 1024
# Past this only the head is read: parsing a huge file for its outline would stall the turn.
OUTLINED_MAX_FILE_BYTES = 1024 * 1024
LISTING_MAX_BYTES = 8 * 1024
# All of one message's attachments together; mentions past it get a note.
MESSAGE_MAX_BYTES = 64 * 1024
MAX_MENTIONS = 10
# One ``!command``'s output as the model gets it: its start and, mostly, its end.
SHELL_HEAD_CHARS = 2_000
SHELL_TAIL_CHARS = 6_000
MAX_HELD_COMMANDS = 10

# ``@path`` at the start of a word (not ``me@example.com``), after a quote or a bracket too.
MENTION = re.compile(r"(?<![^\s(\"'`\[])@([^\s@]+)")
TRAILING_PUNCTUATION = ".,;:!?)]}'\"`"

FILES_INTRO = "[vibe-tui: what the user named with @ in their message, attached for you:]"
SHELL_INTRO = "[vibe-tui: the user ran this command in the workspace themselves:]"


@dataclass(frozen=True)
class Attached:
    """For one message: what the model reads before the words, and what the user is told."""

    context: str | None = None
    summary: str | None = None  # a heading and one line per attachment


@dataclass(frozen=True)
class _Item:
    line: str  # for the user: "@calc.py: 12 lines"
    body: str  # for the model


@dataclass
class Attachments:
    tool_context: ToolContext
    decide: Callable[[ToolRequest], Decision]
    _held: list[_Item] = field(default_factory=list)

    def shell_ran(self, command: str, output: str, exit_code: int | None) -> None:
        """Hold a ``!command``'s output for the next message (the oldest go past a few)."""
        shown = _head_and_tail(output.rstrip("\n"))
        code = "stopped, no exit code" if exit_code is None else f"exit code {exit_code}"
        body = f"{SHELL_INTRO}\n$ {command}\n{shown}\n[{code}]"
        self._held = [*self._held, _Item(f"$ {command}: its output, {code}", body)]
        self._held = self._held[-MAX_HELD_COMMANDS:]

    async def take(self, text: str) -> Attached:
        """The held command output and the files ``text`` mentions; the hold is emptied."""
        mentioned = await asyncio.to_thread(self._mentioned, text) if "@" in text else []
        held, self._held = self._held, []
        items = [*held, *mentioned]
        if not items:
            return Attached()
        parts = [item.body for item in held]
        if mentioned:
            parts.append("\n\n".join([FILES_INTRO, *(item.body for item in mentioned)]))
        context = "\n\n".join(parts)
        summary = "attached to your message:\n" + "\n".join(f"  {item.line}" for item in items)
        return Attached(context, summary)

    def _mentioned(self, text: str) -> list[_Item]:
        items: list[_Item] = []
        room = MESSAGE_MAX_BYTES
        for number, raw in enumerate(_mentions(text)):
            if number >= MAX_MENTIONS:
                items.append(_note(raw, f"not attached, at most {MAX_MENTIONS} per message"))
                continue
            if room <= 0:
                items.append(_note(raw, f"not attached, a message carries at most "
                                        f"{MESSAGE_MAX_BYTES // 1024} KB of files"))
                continue
            item = self._attach(raw)
            if item is None:
                continue
            room -= len(item.body.encode("utf-8"))
            items.append(item)
        return items

    def _attach(self, raw: str) -> _Item | None:
        ctx = self.tool_context
        try:
            path = _existing(raw, ctx.workspace)
        except ToolError as exc:
            reason = "it is outside the workspace" if "outside the workspace" in str(exc) else exc
            return _note(raw, f"not attached, {reason}")
        if path is None:
            if not _looks_like_path(raw):  # @dataclass, @alice: words, not a missing file
                return None
            return _note(raw, "not attached, no such file or folder in the workspace")
        rel = display_path(path, ctx.workspace)
        tool = "list_dir" if path.is_dir() else "read_file"
        decision = self.decide(ToolRequest(tool, "read", {"path": rel}, paths=(path,)))
        if decision.action == "deny":
            return _note(raw, f"not attached, a deny rule of the config covers it "
                              f"({decision.reason})")
        try:
            if path.is_dir():
                return _folder(raw, path, rel, ctx.workspace)
            return _file(raw, path, rel, ctx)
        except BinaryFileError:
            return _note(raw, f"not attached, a binary file ({path.stat().st_size:,} bytes)")
        except (ToolError, OSError) as exc:
            return _note(raw, f"not attached, {exc}")


def _mentions(text: str) -> list[str]:
    """The paths mentioned with ``@``, each once, in order."""
    found: list[str] = []
    for match in MENTION.finditer(text):
        raw = match.group(1)
        if raw not in found:
            found.append(raw)
    return found


def _looks_like_path(raw: str) -> bool:
    word = raw.rstrip(TRAILING_PUNCTUATION)
    return "/" in word or "." in word


def _existing(raw: str, workspace: Path) -> Path | None:
    """The mention's path in the workspace, also when a sentence's punctuation follows it
    (``@calc.py,``); None when nothing by that name exists. ToolError when it is outside."""
    candidates = [raw, raw.rstrip(TRAILING_PUNCTUATION)]
    for candidate in dict.fromkeys(c for c in candidates if c):
        path = resolve_in_workspace(candidate, workspace)
        if path.exists():
            return path
    return None


def _note(raw: str, why: str) -> _Item:
    return _Item(f"@{raw}: {why}", f"[@{raw}: {why}]")


def _folder(raw: str, path: Path, rel: str, workspace: Path) -> _Item:
    listing = list_entries(path, rel, workspace)
    count = listing.splitlines()[0].split(": ", 1)[-1]
    if len(listing.encode("utf-8")) > LISTING_MAX_BYTES:
        listing = _cut(listing, LISTING_MAX_BYTES) + "\n... (more entries: use list_dir)"
    return _Item(f"@{rel}/: a listing of the folder ({count})",
                 f'<folder path="{rel}">\n{listing}\n</folder>')


def _file(raw: str, path: Path, rel: str, ctx: ToolContext) -> _Item:
    text, whole_read, mtime_ns = _read(path, rel, ctx.workspace)
    lines = split_lines(text)
    size = len(text.encode("utf-8"))
    if whole_read and len(lines) <= WHOLE_MAX_LINES and size <= WHOLE_MAX_BYTES:
        # The model has seen all of it, as after read_file: it may edit it straight away.
        ctx.read_files[path] = mtime_ns
        return _Item(f"@{rel}: {_count(len(lines), 'line')}",
                     f'<file path="{rel}">\n{text.rstrip(chr(10))}\n</file>')
    head = _cut("\n".join(lines[:HEAD_MAX_LINES]), HEAD_MAX_BYTES)
    shown = head.count("\n") + 1
    total = f"{len(lines):,} lines" if whole_read else f"{path.stat().st_size:,} bytes"
    rest = _outline_after(rel, text, shown) if whole_read else ""
    parts = [f'<file path="{rel}" shown="lines 1-{shown} of {total}">', head,
             f"[... the rest is not shown: read_file {rel} with offset={shown + 1} to read on]"]
    if rest:
        parts.insert(2, rest)
    what = "and an outline of the rest" if rest else "(the head only)"
    return _Item(f"@{rel}: lines 1-{shown} of {total} {what}", "\n".join(parts) + "\n</file>")


def _read(path: Path, rel: str, workspace: Path) -> tuple[str, bool, int]:
    """The file's text, whether that is all of it, and its mtime_ns."""
    info = path.stat()
    if info.st_size <= OUTLINED_MAX_FILE_BYTES:
        file = load_text_file(path, rel, workspace)  # refuses binary files and FIFOs
        return file.text, True, file.mtime_ns
    with path.open("rb") as handle:
        data = handle.read(HEAD_MAX_BYTES)
    if b"\x00" in data:
        raise BinaryFileError(rel)
    return data.decode("utf-8", "replace"), False, info.st_mtime_ns


def _outline_after(rel: str, text: str, shown: int) -> str:
    entries = [e for e in outline(rel, text) or [] if e.end > shown]
    if not entries:
        return ""
    lines = [f"[outline of lines {shown + 1} on: top-level definitions with their lines]"]
    lines += [f"{e.start}-{e.end}\t{e.signature}" for e in entries]
    return _cut("\n".join(lines), OUTLINE_MAX_BYTES)


def _cut(text: str, max_bytes: int) -> str:
    """``text`` up to ``max_bytes``, ending on a whole line."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    head = data[:max_bytes].decode("utf-8", "ignore")
    return head[:head.rindex("\n")] if "\n" in head else head


def _head_and_tail(output: str) -> str:
    if len(output) <= SHELL_HEAD_CHARS + SHELL_TAIL_CHARS:
        return output or "(no output)"
    cut = len(output) - SHELL_HEAD_CHARS - SHELL_TAIL_CHARS
    return (f"{output[:SHELL_HEAD_CHARS]}\n[... {cut:,} characters cut ...]\n"
            f"{output[-SHELL_TAIL_CHARS:]}")


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")
