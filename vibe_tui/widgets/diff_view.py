"""The diff viewer: a unified diff with line-number gutters, colour and syntax per line.

A Line API widget (``ScrollView``): a proposed new file can be thousands of lines, and
only the rows on screen are ever turned into strips. The diff is parsed once, at
construction, into rows; ``render_line`` styles a row from the widget's component
classes, so every colour comes from the theme.

Two layouts: unified (one column, both line numbers) and side by side (``split``: old
on the left, new on the right, a removed run facing the added run that replaces it).

Hunks can be selected (``select_hunk``); the keys that move the selection belong to
whoever hosts the view. The selected hunk carries a bar in its left margin. A view made
with ``choosable=True`` also keeps which hunks are to be applied (all at first,
``toggle_hunk``): each hunk header shows a tick or a cross, and a left-out hunk is dimmed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import PurePath

from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Region, Size
from textual.highlight import highlight
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual
from unidiff import Hunk, PatchedFile, PatchSet, UnidiffParseError

from vibe_tui.safe_text import safe, safe_name

# Pygments is linear but not free: past this, a hunk is shown without syntax colour.
_MAX_HIGHLIGHT_CHARS = 200_000
_TAB_SIZE = 4
_SELECTED_MARK = "▌"
_KEPT_MARK = "✓ "
_LEFT_OUT_MARK = "✗ "
_SPLIT_SEPARATOR = "│"
_KINDS = {"+": "added", "-": "removed", " ": "context"}
_SIGNS = {kind: sign for sign, kind in _KINDS.items()}


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One screen row: a file header, a hunk header or a line of code."""

    kind: str  # file | hunk | added | removed | context | note
    text: Content
    old: int | None = None  # line number before the change
    new: int | None = None  # line number after it
    hunk: int = -1  # index of the hunk the row belongs to, -1 for none


@dataclass(frozen=True, slots=True)
class SplitRow:
    """One side-by-side row: old line left, new line right; or one row across both."""

    left: DiffRow | None
    right: DiffRow | None
    across: DiffRow | None = None  # a file header, hunk header or note
    hunk: int = -1


class DiffView(ScrollView, can_focus=True):
    """A read-only diff. ``select_hunk(i)`` marks and reveals hunk ``i``."""

    COMPONENT_CLASSES = {
        "diff-view--file",
        "diff-view--hunk",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--context",
        "diff-view--note",
        "diff-view--gutter",
        "diff-view--selected",
        "diff-view--left-out",
    }

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        background: $surface;
        & > .diff-view--file { background: $panel; color: $text; text-style: bold; }
        & > .diff-view--hunk { background: $boost; color: $text-accent; }
        & > .diff-view--added { background: $success-muted; }
        & > .diff-view--removed { background: $error-muted; }
        & > .diff-view--context { color: $text-muted; }
        & > .diff-view--note { color: $text-muted; text-style: italic; }
        & > .diff-view--gutter { color: $text-muted; }
        & > .diff-view--selected { color: $accent; text-style: bold; }
        & > .diff-view--left-out { color: $text-disabled; text-style: strike; }
    }
    """

    selected_hunk: reactive[int] = reactive(-1)
    """The selected hunk's index, -1 when none is selected."""

    split: reactive[bool] = reactive(False, init=False)
    """Side by side (True) or unified (False)."""

    def __init__(self, diff: str, *, split: bool = False, choosable: bool = False,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.diff = diff
        self.rows, self.parsed = build_rows(diff)
        self.split_rows = split_rows(self.rows)
        self.choosable = choosable
        self._hunk_spans = _hunk_spans(self.rows)
        self._split_spans = _hunk_spans(self.split_rows)
        self._number_width = _number_width(self.rows)
        self._left_out: set[int] = set()
        self._strips: LRUCache[tuple[bool, int, int, bool, bool], Strip] = LRUCache(1024)
        self.set_reactive(DiffView.split, split)
        self._size_to_layout()

    @property
    def hunk_count(self) -> int:
        return len(self._hunk_spans)

    @property
    def kept_hunks(self) -> list[int]:
        """The hunks to apply, in order (all of them unless some were toggled off)."""
        return [index for index in range(self.hunk_count) if index not in self._left_out]

    def toggle_hunk(self, index: int | None = None) -> None:
        """Leave hunk ``index`` (default: the selected one) out, or take it back in."""
        index = self.selected_hunk if index is None else index
        if 0 <= index < self.hunk_count:
            self._left_out ^= {index}
            self.refresh()

    def watch_split(self) -> None:
        self._size_to_layout()
        self.refresh()
        if self.selected_hunk >= 0:
            self.call_after_refresh(self._reveal_selected)

    def _size_to_layout(self) -> None:
        # Side by side fits the view's width (each half crops its lines): no sideways scroll.
        if self.split:
            self.virtual_size = Size(0, len(self.split_rows))
        else:
            self.virtual_size = Size(self._content_width(), len(self.rows))

    def select_hunk(self, index: int) -> None:
        """Select hunk ``index`` (clamped to the hunks there are) and scroll it into view."""
        if self.hunk_count:
            self.selected_hunk = max(0, min(index, self.hunk_count - 1))

    def watch_selected_hunk(self) -> None:
        self.refresh()  # strips are cached per selection state: no need to drop them
        if self.selected_hunk >= 0:
            # After a refresh, so a view selected before its first layout still scrolls.
            self.call_after_refresh(self._reveal_selected)

    def _reveal_selected(self) -> None:
        spans = self._split_spans if self.split else self._hunk_spans
        start, end = spans[self.selected_hunk]
        # A hunk taller than the view shows its header rather than its tail.
        height = min(end - start, max(self.scrollable_content_region.height, 1))
        self.scroll_to_region(Region(0, start, 1, height), animate=False, force=True)

    def notify_style_update(self) -> None:
        # Theme or CSS changed: every cached strip carries old colours.
        super().notify_style_update()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        if index >= (len(self.split_rows) if self.split else len(self.rows)):
            return Strip.blank(width, self.rich_style)
        if self.split:
            return self._cached_strip(index, width, self._split_strip)
        # Rows are padded to the full scroll width so their background reaches the edge.
        full = max(width, self.virtual_size.width)
        strip = self._cached_strip(index, full, self._row_strip)
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _cached_strip(self, index: int, width: int, build) -> Strip:
        hunk = (self.split_rows if self.split else self.rows)[index].hunk
        selected = hunk >= 0 and hunk == self.selected_hunk
        left_out = hunk in self._left_out
        key = (self.split, index, width, selected, left_out)
        if (strip := self._strips.get(key)) is None:
            strip = self._strips[key] = build(index, width, selected, left_out)
        return strip

    def _row_strip(self, index: int, width: int, selected: bool, left_out: bool) -> Strip:
        row = self.rows[index]
        style = self.get_visual_style(f"diff-view--{row.kind}")
        content = self._row_content(row, selected, left_out)
        return Visual.to_strips(self, content, width, 1, style, pad=True)[0]

    def _split_strip(self, index: int, width: int, selected: bool, left_out: bool) -> Strip:
        row = self.split_rows[index]
        if row.across is not None:
            style = self.get_visual_style(f"diff-view--{row.across.kind}")
            content = self._row_content(row.across, selected, left_out)
        else:
            style = self.get_visual_style("diff-view--context")
            half = max((width - 1) // 2, 1)
            mark = (_SELECTED_MARK, ".diff-view--selected") if selected else " "
            content = Content.assemble(
                mark,
                self._half(row.left, "old", half - 1, left_out),
                (_SPLIT_SEPARATOR, ".diff-view--gutter"),
                self._half(row.right, "new", width - half - 1, left_out),
            )
        return Visual.to_strips(self, content, width, 1, style, pad=True)[0]

    def _half(self, row: DiffRow | None, side: str, width: int, left_out: bool) -> Content:
        """One side of a side-by-side row, cropped or padded to ``width`` cells."""
        if row is None:
            return Content(" " * width)
        number = row.old if side == "old" else row.new
        gutter = f"{'' if number is None else number:>{self._number_width}} "
        text = row.text.stylize(".diff-view--left-out") if left_out else row.text
        line = Content.assemble((gutter, ".diff-view--gutter"), _SIGNS[row.kind], " ", text)
        line = line.truncate(width, pad=True)
        if row.kind == "context":
            return line
        # A style object rather than a class name: the half needs the class's background.
        return line.stylize_before(self.get_visual_style(f"diff-view--{row.kind}"))

    def _row_content(self, row: DiffRow, selected: bool, left_out: bool = False) -> Content:
        mark = (_SELECTED_MARK, ".diff-view--selected") if selected else " "
        if row.kind == "file":
            return Content.assemble(" ", row.text)
        if row.kind == "hunk" and self.choosable:
            choice = ((_LEFT_OUT_MARK, "$text-error bold") if left_out
                      else (_KEPT_MARK, "$text-success bold"))
            return Content.assemble(mark, " " * (self._gutter_width() - 2), choice, row.text)
        if row.kind in ("hunk", "note"):
            return Content.assemble(mark, " " * self._gutter_width(), row.text)
        width = self._number_width
        old = "" if row.old is None else str(row.old)
        new = "" if row.new is None else str(row.new)
        gutter = f"{old:>{width}} {new:>{width}} "
        text = row.text.stylize(".diff-view--left-out") if left_out else row.text
        return Content.assemble(
            mark, (gutter, ".diff-view--gutter"), _SIGNS[row.kind], " ", text
        )

    def _gutter_width(self) -> int:
        return 2 * self._number_width + 2

    def _content_width(self) -> int:
        # mark + gutter + sign + space + text; headers have no gutter.
        code = 1 + self._gutter_width() + 2
        widths = [row.text.cell_length + (1 if row.kind == "file" else code) for row in self.rows]
        return max(widths, default=0)


def build_rows(diff: str) -> tuple[list[DiffRow], bool]:
    """The rows for ``diff``, and whether unidiff could parse it."""
    if not diff.strip():
        return [DiffRow("note", Content("no changes"))], True
    try:
        patch = PatchSet(diff)
    except UnidiffParseError:
        return _fallback_rows(diff), False
    if not patch:
        return _fallback_rows(diff), False
    rows: list[DiffRow] = []
    for patched in patch:
        rows.append(DiffRow("file", _file_header(patched)))
        if patched.is_binary_file:
            rows.append(DiffRow("note", Content("binary file changed")))
        for hunk in patched:
            rows.extend(_hunk_rows(hunk, patched.path, _next_hunk(rows)))
    return rows, True


def _next_hunk(rows: list[DiffRow]) -> int:
    return 1 + max((row.hunk for row in rows), default=-1)


def _file_header(patched: PatchedFile) -> Content:
    # The file a decision is about: its name as it really is, sequences shown, not dropped.
    path = safe_name(patched.path)
    if patched.is_added_file:
        tag = "new file"
    elif patched.is_removed_file:
        tag = "deleted"
    elif patched.is_rename:
        tag = f"renamed from {safe_name(_strip_prefix(patched.source_file))}"
    else:
        tag = ""
    return Content.assemble(
        path,
        ("  " + tag, "$text-warning") if tag else "",
        (f"  +{patched.added}", "$text-success"),
        (f" -{patched.removed}", "$text-error"),
    )


def _hunk_rows(hunk: Hunk, path: str, index: int) -> list[DiffRow]:
    old = f"-{hunk.source_start},{hunk.source_length}"
    new = f"+{hunk.target_start},{hunk.target_length}"
    header = f"@@ {old} {new} @@"
    if hunk.section_header:
        header += " " + _clean(hunk.section_header)
    rows = [DiffRow("hunk", Content(header), hunk=index)]
    code_lines = [line for line in hunk if line.line_type in _KINDS]
    texts = iter(_highlighted([_clean(line.value) for line in code_lines], path))
    for line in hunk:
        if line.line_type in _KINDS:
            old, new = line.source_line_no, line.target_line_no
            rows.append(DiffRow(_KINDS[line.line_type], next(texts), old, new, index))
        elif line.line_type == "\\":  # "\ No newline at end of file"
            rows.append(DiffRow("note", Content("\\" + _clean(line.value)), hunk=index))
    return rows


def _highlighted(lines: list[str], path: str) -> list[Content]:
    """Syntax colour for ``lines``, lexed together so a line sees its neighbours."""
    language = _language(path)
    code = "\n".join(lines)
    if language is None or len(code) > _MAX_HIGHLIGHT_CHARS:
        return [Content(line) for line in lines]
    result = highlight(code, language=language, tab_size=_TAB_SIZE).split(
        "\n", allow_blank=True
    )
    # The highlighter splits on every Unicode line break; if that moved lines, go plain.
    if len(result) < len(lines) or [c.plain for c in result[: len(lines)]] != lines:
        return [Content(line) for line in lines]
    # Drop the highlighter's "$text" base so each row's own colour (muted context) shows.
    return [_without_base(line) for line in result[: len(lines)]]


def _without_base(line: Content) -> Content:
    return Content(line.plain, spans=[span for span in line.spans if span.style != "$text"])


@functools.lru_cache(maxsize=128)
def _language(path: str) -> str | None:
    """The Pygments lexer for a file name; by name only (guessing from content is slow)."""
    try:
        lexer = get_lexer_for_filename(PurePath(path).name)
    except ClassNotFound:
        return None
    return lexer.aliases[0] if lexer.aliases else None


def _clean(value: str) -> str:
    """One display line: newline dropped, a stray CR shown, controls made safe, tabs expanded."""
    value = value.rstrip("\n").removesuffix("\r").replace("\r", "\\r")
    return safe(value).expandtabs(_TAB_SIZE)


def _strip_prefix(name: str) -> str:
    return name[2:] if name.startswith(("a/", "b/")) else name


def _fallback_rows(diff: str) -> list[DiffRow]:
    """Rows for text unidiff rejects: colour by the leading character, no line numbers."""
    rows = [DiffRow("note", Content("could not parse this diff; shown as text"))]
    hunk = -1
    for line in diff.splitlines():
        text = _clean(line)
        if line.startswith("@@"):
            hunk += 1
            rows.append(DiffRow("hunk", Content(text), hunk=hunk))
        elif line.startswith(("+++", "---", "diff ", "index ")):
            rows.append(DiffRow("file", Content(safe_name(line.removesuffix("\r")))))
        elif line.startswith(("+", "-", " ")):
            rows.append(DiffRow(_KINDS[line[0]], Content(_clean(line[1:])), hunk=hunk))
        else:
            rows.append(DiffRow("note", Content(text), hunk=hunk))
    return rows


def split_rows(rows: list[DiffRow]) -> list[SplitRow]:
    """The side-by-side rows: context on both sides, each run of removed lines facing
    the run of added lines that follows it, headers and notes across."""
    result: list[SplitRow] = []
    removed: list[DiffRow] = []
    added: list[DiffRow] = []

    def flush() -> None:
        for left, right in zip_longest(removed, added):
            hunk = (left or right).hunk  # type: ignore[union-attr]
            result.append(SplitRow(left, right, hunk=hunk))
        removed.clear()
        added.clear()

    for row in rows:
        if row.kind == "removed":
            if added:  # a removed line after added ones starts a new run
                flush()
            removed.append(row)
        elif row.kind == "added":
            added.append(row)
        else:
            flush()
            if row.kind == "context":
                result.append(SplitRow(row, row, hunk=row.hunk))
            else:
                result.append(SplitRow(None, None, across=row, hunk=row.hunk))
    flush()
    return result


def _hunk_spans(rows: list[DiffRow] | list[SplitRow]) -> list[tuple[int, int]]:
    """(first row, end row) of each hunk, in order."""
    spans: dict[int, list[int]] = {}
    for y, row in enumerate(rows):
        if row.hunk >= 0:
            spans.setdefault(row.hunk, [y, y + 1])[1] = y + 1
    return [(start, end) for start, end in spans.values()]


def _number_width(rows: list[DiffRow]) -> int:
    largest = max((n for row in rows for n in (row.old, row.new) if n is not None), default=0)
    return max(len(str(largest)), 2)
