"""Outlines: the top-level definitions of one file and the lines they span.

A long file read a window at a time is easier to move around in with its shape in
view: read_file puts this outline before the first window of a file longer than it
shows at once. The definitions come from the tags query of the file's language (see
``tags.py``); top-level means not inside another definition. Constants and variables
are left out: an outline is for the structure, not every assignment.
"""

from __future__ import annotations

from dataclasses import dataclass

from vibe_tui.code.tags import Definition, extract_tags

# Enough for any file a person wrote by hand; past it the outline says how many more.
MAX_OUTLINE_ENTRIES = 200
_SKIPPED_CATEGORIES = frozenset({"constant", "variable", "field"})


@dataclass(frozen=True)
class OutlineEntry:
    start: int  # 1-based first line
    end: int  # 1-based last line
    category: str  # "class", "function", ...
    signature: str  # the line with the name, without its indentation


def outline(path_or_name: str, text: str) -> list[OutlineEntry] | None:
    """The top-level definitions of ``text`` in source order; None when its language
    (taken from ``path_or_name``) has no tags query."""
    tags = extract_tags(path_or_name, text.encode("utf-8", "surrogatepass"))
    if tags is None:
        return None
    shown = [d for d in tags.definitions if d.category not in _SKIPPED_CATEGORIES]
    return [_entry(d) for d in _outermost(shown)]


def _outermost(definitions: list[Definition]) -> list[Definition]:
    """Definitions not inside another one. Sorted by start, a definition is nested
    exactly when it starts before the outermost one seen last has ended."""
    found: list[Definition] = []
    for definition in sorted(definitions, key=lambda d: (d.start, -d.end)):
        if found and definition.start <= found[-1].end:
            continue
        found.append(definition)
    return found


def _entry(definition: Definition) -> OutlineEntry:
    return OutlineEntry(definition.start, definition.end, definition.category, definition.signature.strip())


def outline_text(path_or_name: str, text: str, total_lines: int) -> str:
    """The outline as read_file shows it above the numbered lines, ending in a blank
    line; "" when the language has no tags query or the file no definitions."""
    entries = outline(path_or_name, text)
    if not entries:
        return ""
    lines = [f"Outline of {path_or_name} ({total_lines:,} lines), top-level definitions with their lines:"]
    lines.extend(f"  {e.start}-{e.end}\t{e.signature}" for e in entries[:MAX_OUTLINE_ENTRIES])
    if len(entries) > MAX_OUTLINE_ENTRIES:
        lines.append(f"  ... and {len(entries) - MAX_OUTLINE_ENTRIES} more")
    return "\n".join(lines) + "\n\n"
