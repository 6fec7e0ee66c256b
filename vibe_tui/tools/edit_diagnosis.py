"""Why an edit_file's old_string was not found, in words a model can act on: only
whitespace differs, line numbers were copied in, or the closest lines that do exist."""

from __future__ import annotations

import difflib
import os
import re


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def column_of(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1) + 1


def _normalise_spaces(line: str) -> str:
    return " ".join(line.split())


def _loosely_equal_window(window: list[str], loose_old: list[str]) -> bool:
    """Whether file lines match old_string's lines (whitespace-normalised) with
    whitespace ignored; the first and last lines of old_string may be the end and
    start of a file line."""
    loose_file = [_normalise_spaces(line) for line in window]
    if len(loose_old) == 1:
        return loose_old[0] in loose_file[0]
    return (
        loose_file[0].endswith(loose_old[0])
        and loose_file[1:-1] == loose_old[1:-1]
        and loose_file[-1].startswith(loose_old[-1])
    )


def _whitespace_difference(file_line: str, old_line: str) -> str:
    """Say how two lines that differ only in whitespace differ."""
    if file_line.endswith("\r") and not old_line.endswith("\r"):
        return "the file ends the line with CRLF where old_string has LF"
    file_line = file_line.rstrip("\r")
    file_indent = file_line[: len(file_line) - len(file_line.lstrip())]
    old_indent = old_line[: len(old_line) - len(old_line.lstrip())]
    if "\t" in file_indent and "\t" not in old_indent:
        return "the file indents with tabs where old_string uses spaces"
    if "\t" in old_indent and "\t" not in file_indent:
        return "the file indents with spaces where old_string uses tabs"
    if file_line != file_line.rstrip() and old_line == old_line.rstrip():
        return "the file has trailing whitespace that old_string lacks"
    if old_line != old_line.rstrip() and file_line == file_line.rstrip():
        return "old_string has trailing whitespace that the file lacks"
    if len(file_indent) != len(old_indent):
        return f"the indentation differs (file: {len(file_indent)} characters, old_string: {len(old_indent)})"
    return "the spacing inside the line differs"


def _first_differing_line(window: list[str], old_lines: list[str]) -> int:
    for index, (file_line, old_line) in enumerate(zip(window, old_lines)):
        is_first, is_last = index == 0, index == len(old_lines) - 1
        if is_first and is_last:
            differs = old_line not in file_line
        elif is_first:
            differs = not file_line.endswith(old_line)
        elif is_last:
            differs = not file_line.startswith(old_line)
        else:
            differs = file_line != old_line
        if differs:
            return index
    return 0


def _whitespace_only_message(text: str, old: str, rel: str) -> str | None:
    old_lines = old.split("\n")
    loose_old = [_normalise_spaces(line) for line in old_lines]
    if not any(loose_old):
        return None
    file_lines = text.split("\n")
    for start in range(len(file_lines) - len(old_lines) + 1):
        window = file_lines[start : start + len(old_lines)]
        if not _loosely_equal_window(window, loose_old):
            continue
        index = _first_differing_line(window, old_lines)
        reason = _whitespace_difference(window[index], old_lines[index])
        return (
            f"old_string not found in {rel}, but it matches line {start + 1} when whitespace "
            f"is ignored: at line {start + index + 1} {reason}. Copy the exact text from "
            "read_file (without the line numbers) and try again."
        )
    return None


_LINE_NUMBER_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)


def _line_numbers_message(text: str, old: str, rel: str) -> str | None:
    without_numbers = _LINE_NUMBER_PREFIX.sub("", old)
    if without_numbers != old and without_numbers in text:
        return (
            f"old_string not found in {rel}: it includes the line numbers read_file shows "
            "('    12<TAB>'). Send the file text only, without the numbers."
        )
    return None


def _snippet(text: str, offset: int) -> str:
    """repr() of the rest of the line at offset (shows tabs and newlines), shortened."""
    piece = text[offset : offset + 40]
    newline = piece.find("\n")
    return repr(piece[: newline + 1] if newline >= 0 else piece)


def _align_in_line(file_line: str, old_line: str) -> int:
    """Column in file_line where old_line most plausibly starts: where their longest
    common run of characters lines up."""
    matcher = difflib.SequenceMatcher(None, old_line, file_line, autojunk=False)
    block = matcher.find_longest_match(0, len(old_line), 0, len(file_line))
    return max(0, block.b - block.a) if block.size else 0


def _best_anchor_line(file_lines: list[str], old: str, anchor: str) -> tuple[int, float]:
    """The file line where old_string most likely starts, and how alike the first
    lines are (0..1). First lines decide; among near-equal ones (first lines like
    'try:' or '}' repeat) the one whose following lines match old_string best wins."""
    # SequenceMatcher caches what it learns about its second sequence: keep the anchor there.
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(anchor.strip())
    scores: dict[int, float] = {}
    best_score = 0.0
    for index, line in enumerate(file_lines):
        matcher.set_seq1(line.strip())
        # The quick ratios are cheap upper bounds: skip lines that cannot contend.
        if matcher.real_quick_ratio() < best_score - 0.05 or matcher.quick_ratio() < best_score - 0.05:
            continue
        scores[index] = matcher.ratio()
        best_score = max(best_score, scores[index])
    contenders = [index for index, score in scores.items() if score >= best_score - 0.05][:20]
    old_block = old.rstrip("\n")
    line_count = old_block.count("\n") + 1

    def block_ratio(index: int) -> float:
        block = "\n".join(file_lines[index : index + line_count])
        return difflib.SequenceMatcher(None, old_block, block, autojunk=False).ratio()

    best_index = max(contenders, key=lambda index: (block_ratio(index), -index))
    return best_index, scores[best_index]


def _closest_match_message(text: str, old: str, rel: str) -> str:
    file_lines = text.split("\n")
    # Leading blank lines of old_string say nothing about where it belongs.
    stripped_old = old.lstrip("\n")
    anchor = stripped_old.split("\n", 1)[0]
    line_index, similarity = _best_anchor_line(file_lines, stripped_old, anchor)
    if similarity < 0.5:
        return (
            f"old_string not found in {rel}, and no line resembles its first line "
            f"{anchor.strip()[:60]!r}. Read the file to see its current text."
        )
    line_start = sum(len(line) + 1 for line in file_lines[:line_index])
    start = line_start + _align_in_line(file_lines[line_index], anchor)
    compared = text[start : start + len(stripped_old)]
    matched = len(os.path.commonprefix([compared, stripped_old]))
    where = start + matched
    file_side = "the file ends" if where >= len(text) else f"the file has {_snippet(text, where)}"
    if matched == len(stripped_old):
        return (
            f"old_string not found in {rel}: its text matches at line {line_index + 1} but "
            "the blank lines before it do not. Remove the leading blank lines."
        )
    return (
        f"old_string not found in {rel}. Closest match at line {line_index + 1}: matches up to "
        f"line {line_of(text, where)} column {column_of(text, where)}, where {file_side} "
        f"and old_string has {_snippet(stripped_old, matched)}. "
        "Read the file again and copy the exact text."
    )


def describe_missing(text: str, old: str, rel: str) -> str:
    """Why old_string is not in text, as precisely as we can tell."""
    return (
        _line_numbers_message(text, old, rel)
        or _whitespace_only_message(text, old, rel)
        or _closest_match_message(text, old, rel)
    )
