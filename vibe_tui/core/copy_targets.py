"""What ``/copy`` and the ``c`` key copy, read from the session's events: the last answer,
one of its code blocks, a tool call's output.

Read from the event log rather than from the screen: a cleared or pruned view still copies
exactly what the model wrote, escape sequences and all removed only where it is drawn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.config.paths import data_dir
from vibe_tui.core.events import AssistantMessage, Event, ToolCall, ToolResult

COPY_USAGE = ("/copy copies the last answer · /copy code: its last code block · /copy N: "
              "its N-th code block · /copy tool: the last tool output · view at the end: "
              "shown alone to select by hand")
# An opening fence: up to three spaces, then three or more backticks or tildes.
OPENING_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
COPIED_SUFFIX = ".copied.txt"


@dataclass(frozen=True)
class CopyTarget:
    text: str
    what: str  # for the notice: "the last answer", "code block 2 of 3"


def code_blocks(markdown: str) -> list[str]:
    """The fenced code blocks of ``markdown``, their content only. A fence closes on a line
    of the same character at least as long (so a block may show a shorter fence); an
    unclosed one runs to the end, as Markdown draws it."""
    blocks: list[str] = []
    fence: str | None = None
    lines: list[str] = []
    for line in markdown.splitlines():
        if fence is None:
            opening = OPENING_FENCE.match(line)
            if opening:
                fence, lines = opening.group(1), []
            continue
        if _closes(line, fence):
            blocks.append("\n".join(lines))
            fence = None
        else:
            lines.append(line)
    if fence is not None:
        blocks.append("\n".join(lines))
    return blocks


def _closes(line: str, fence: str) -> bool:
    bare = line.strip()
    return (len(line) - len(line.lstrip(" ")) <= 3 and len(bare) >= len(fence)
            and set(bare) == {fence[0]})


def choose(events: Sequence[Event], request: str) -> CopyTarget:
    """What ``/copy REQUEST`` names; LookupError saying why when there is none."""
    words = request.split()
    if not words:
        return CopyTarget(last_answer(events), "the last answer")
    if words == ["tool"]:
        return last_tool_output(events)
    if words[0] == "code" and len(words) <= 2:
        return code_block(events, words[1] if len(words) == 2 else None)
    if len(words) == 1 and words[0].isdigit():
        return code_block(events, words[0])
    raise LookupError(COPY_USAGE)


def last_answer(events: Sequence[Event]) -> str:
    for event in reversed(events):
        if (isinstance(event, AssistantMessage) and event.parent_call_id is None
                and event.text.strip()):
            return event.text
    raise LookupError("no answer to copy yet")


def code_block(events: Sequence[Event], number: str | None) -> CopyTarget:
    """The last code block of the last answer that has any, or its ``number``-th."""
    for event in reversed(events):
        if isinstance(event, AssistantMessage) and event.parent_call_id is None:
            blocks = code_blocks(event.text)
            if blocks:
                break
    else:
        raise LookupError("no answer with a code block to copy yet")
    index = len(blocks) if number is None else int(number) if number.isdigit() else 0
    if not 1 <= index <= len(blocks):
        count = f"{len(blocks)} code block" + ("" if len(blocks) == 1 else "s")
        raise LookupError(f"the last answer has {count}: /copy 1 to /copy {len(blocks)}")
    return CopyTarget(blocks[index - 1], f"code block {index} of {len(blocks)}")


def last_tool_output(events: Sequence[Event]) -> CopyTarget:
    for event in reversed(events):
        if isinstance(event, ToolResult):
            return tool_output(events, event.call_id)
    raise LookupError("no tool output to copy yet")


def tool_output(events: Sequence[Event], call_id: str) -> CopyTarget:
    """The output of the latest call with ``call_id`` (some servers reuse ids)."""
    result = next((e for e in reversed(events)
                   if isinstance(e, ToolResult) and e.call_id == call_id), None)
    if result is None:
        raise LookupError("that tool call has no output yet")
    call = next((e for e in reversed(events)
                 if isinstance(e, ToolCall) and e.call_id == call_id), None)
    named = f"{result.tool} {call.summary}" if call is not None else result.tool
    return CopyTarget(result.output, f"the output of {named}")


def save_copy(store_path: Path | None, text: str) -> Path:
    """Keep what was copied in a file beside the session's log, for terminals that ignore
    the clipboard sequence (or an unsaved session's in the data folder). Runs in a thread."""
    path = (store_path.with_suffix(COPIED_SUFFIX) if store_path is not None
            else data_dir() / f"last{COPIED_SUFFIX}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
