"""Hunks: one group of changes with its context, exactly as ``unified_diff`` groups them
(difflib's grouped opcodes with three lines of context), so hunk ``i`` of a diff a view
shows is group ``i`` here. A change can land with only the hunks the user kept."""

from __future__ import annotations

import difflib

from vibe_tui.tools.text_file import lines_keepends

CONTEXT_LINES = 3


def _grouped(old: str, new: str) -> tuple[list[str], list[str], list[list[tuple]]]:
    before, after = lines_keepends(old), lines_keepends(new)
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
