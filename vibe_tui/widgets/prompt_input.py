"""The prompt: a multi-line input that stays usable while a turn runs.

Enter sends (during a turn the session treats it as steering); Shift+Enter, Alt+Enter or
Ctrl+J insert a newline; Up and Down walk the history from the first and last line;
``/`` completes slash commands, ``/model `` model names and ``@`` workspace paths from a
short list shown above the prompt. PageUp/PageDown and Ctrl+Home/Ctrl+End scroll the
conversation: the prompt keeps the keys while the user reads back.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

PLACEHOLDER = "Ask vibe-tui…  (Enter send · Shift+Enter newline · / commands · @ files)"
NEWLINE_KEYS = ("shift+enter", "ctrl+j", "alt+enter")
MAX_COMPLETIONS = 8
# Folders nobody mentions by hand; walking them would only slow the first "@".
SKIPPED_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", "dist", "build",
                "target", ".idea", ".vscode"}
MAX_INDEXED_FILES = 20_000
PATHS_FRESH_S = 15.0
MENTION = re.compile(r"(?:^|\s)@(\S*)$")
MODEL_COMMAND = "/model "


@dataclass(frozen=True)
class Completion:
    replace: int  # characters before the cursor that the completion replaces
    value: str
    description: str = ""
    runs: bool = False  # a slash command: Enter on it runs it, as typing it in full would


def workspace_files(workspace: Path) -> list[str]:
    """Relative paths of the workspace's files, folders first-level first. Runs in a thread."""
    found: list[str] = []
    for root, dirs, files in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        rel_root = os.path.relpath(root, workspace)
        prefix = "" if rel_root == "." else rel_root + "/"
        found.extend(prefix + d + "/" for d in dirs)
        found.extend(prefix + name for name in sorted(files))
        if len(found) >= MAX_INDEXED_FILES:
            break
    return found


def match_models(models: list[str], fragment: str) -> list[str]:
    """Models containing ``fragment`` in the given order (recent ones come first): the
    exact name first (Enter then sends it), then those starting with it."""
    lowered = fragment.lower()
    hits = [m for m in models if lowered in m.lower()]
    return sorted(hits, key=lambda m: (m.lower() != lowered, not (
        m.lower().startswith(lowered) or m.lower().split("/", 1)[-1].startswith(lowered)))
                  )[:MAX_COMPLETIONS]


def match_paths(paths: list[str], fragment: str) -> list[str]:
    """Paths containing ``fragment``: prefix matches, then name matches, then the rest."""
    lowered = fragment.lower()
    hits = [p for p in paths if lowered in p.lower()]
    return sorted(hits, key=lambda p: (not p.lower().startswith(lowered),
                                       lowered not in p.rstrip("/").rsplit("/", 1)[-1].lower(),
                                       p.count("/"), p))[:MAX_COMPLETIONS]


def changed_up_to(old: Strip, new: Strip) -> int | None:
    """How many cells from the left hold every change between two drawings of a row (None:
    none). Textual writes a repainted row from its start, so where a change begins does not
    save any bytes; where the last one ends does."""
    if old == new:
        return None
    before = [(char, segment.style) for segment in old for char in segment.text]
    after = [(char, segment.style) for segment in new for char in segment.text]
    same_end = 0
    while (same_end < min(len(before), len(after))
           and before[-1 - same_end] == after[-1 - same_end]):
        same_end += 1
    old_text = "".join(char for char, _ in before)
    new_text = "".join(char for char, _ in after)
    return max(1, cell_len(old_text[:len(old_text) - same_end]),
               cell_len(new_text[:len(new_text) - same_end]))


class CompletionList(OptionList):
    """The few candidates for what is being typed; hidden when there are none."""

    DEFAULT_CSS = """
    CompletionList {
        display: none;
        height: auto;
        max-height: 10;
        border: round $accent 50%;
        background: $surface;
        &.-shown { display: block; }
    }
    """
    can_focus = False  # the prompt keeps the keys; it moves the highlight itself

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.completions: list[Completion] = []

    def show(self, completions: list[Completion]) -> None:
        self.completions = completions
        self.set_options(Option(Content.assemble(
            (c.value, "bold"), ("  " + c.description if c.description else "", "$text-muted")))
            for c in completions)
        self.set_class(bool(completions), "-shown")
        if completions:
            self.highlighted = 0

    def hide(self) -> None:
        self.completions = []
        self.remove_class("-shown")

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def chosen(self) -> Completion | None:
        if not self.shown or self.highlighted is None:
            return None
        return self.completions[self.highlighted]


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 40%;
        padding: 0 1;
        background: $background;
        &:focus { border: round $primary; }
    }
    """

    # The prompt is a line or two tall: its own page moves are worth less than reading the
    # conversation without leaving it (Claude Code and Codex use these keys so too).
    BINDINGS = [
        Binding("pageup", "app.scroll_conversation('page_up')", "scroll up", show=False),
        Binding("pagedown", "app.scroll_conversation('page_down')", "scroll down", show=False),
        Binding("ctrl+home", "app.scroll_conversation('top')", "scroll to top", show=False),
        Binding("ctrl+end", "app.scroll_conversation('bottom')", "scroll to end", show=False),
    ]

    # What each visible row was last drawn as, and whether the rows are to be compared with
    # it before the next frame (see ``refresh``).
    _drawn_rows: dict[int, Strip] | None = None
    _selection_repaint_next = False
    _rows_to_compare = False

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, workspace: Path, commands: list[tuple[str, str]], *,
                 model_names: Callable[[], list[str]] | None = None, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         placeholder=PLACEHOLDER, highlight_cursor_line=False, **kwargs)
        self.workspace = workspace
        self.commands = commands  # (name, one-line help)
        self.model_names = model_names  # what ``/model `` offers, asked as it is typed
        self.past_prompts: list[str] = []
        self._history_index: int | None = None  # None: editing a fresh draft
        self._draft = ""
        self._paths: list[str] | None = None
        self._paths_read_at = 0.0
        self._theme_css_for: tuple | None = None  # what the theme's CSS was applied for

    def render_lines(self, crop: Region) -> list[Strip]:
        # TextArea applies its theme's CSS fallbacks at every render, a sixth of a key's
        # cost; they change only with the theme, the styles and the prompt's state.
        theme = self._theme
        applied_for = (id(theme), self.app.current_theme.name, self._pseudo_classes_cache_key,
                       self.classes, self.rich_style)
        if theme is not None and applied_for != self._theme_css_for:
            theme.apply_css(self)
            self._theme_css_for = applied_for
        return Widget.render_lines(self, crop)

    # ---- drawing only what a key changed ----------------------------------------------------

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self._drawn_rows is None:
            self._drawn_rows = {}
        self._drawn_rows[y] = strip
        return strip

    def _watch_selection(self, previous_selection, selection) -> None:
        super()._watch_selection(previous_selection, selection)
        self._selection_repaint_next = True  # the reactive's refresh comes right after

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> PromptInput:
        # TextArea repaints all of itself, border included, after every key: its selection
        # reactive refreshes the whole widget. Here that refresh repaints only the cells
        # that differ from what is on screen, compared once the key's work is done. Any
        # other refresh (styles, size, scroll, focus) stays whole.
        from_selection, self._selection_repaint_next = self._selection_repaint_next, False
        if (from_selection and not regions and repaint and not layout and not recompose
                and self._drawn_rows and self.is_mounted):
            self._rows_to_compare = True
            self.check_idle()
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def on_idle(self) -> None:
        # Runs before Widget's own idle step, which hands the dirty cells to the screen.
        if self._rows_to_compare:
            self._rows_to_compare = False
            self._refresh_changed_rows()

    def _refresh_changed_rows(self) -> None:
        drawn = self._drawn_rows or {}
        width = self.scrollable_content_region.width
        for y in range(self.scrollable_content_region.height):
            old = drawn.get(y)
            new = super().render_line(y)
            end = max(width, new.cell_length) if old is None else changed_up_to(old, new)
            if end is not None:
                super().refresh(Region(0, y, end, 1))

    @property
    def completion_list(self) -> CompletionList:
        return self.screen.query_one(CompletionList)

    # ---- keys ---------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        handled = True
        if event.key == "enter":
            self._catch_up_completions()
            chosen = self.completion_list.chosen()
            if not self._accept_completion() or (chosen is not None and chosen.runs):
                self._submit()
        elif event.key in NEWLINE_KEYS:
            self.insert("\n")
        elif event.key == "tab" and (self.completion_list.shown or self._completions()):
            self._catch_up_completions()
            self._accept_completion()
        elif event.key == "escape" and self.completion_list.shown:
            self.completion_list.hide()
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.completion_list.shown:
            self.completion_list.action_cursor_up()
        elif not select and self.cursor_location[0] == 0:
            self._walk_history(-1)
        else:
            super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if not select and self.completion_list.shown:
            self.completion_list.action_cursor_down()
        elif not select and self.cursor_location[0] == self.document.line_count - 1:
            self._walk_history(+1)
        else:
            super().action_cursor_down(select)

    def _submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.past_prompts or self.past_prompts[-1] != text:
            self.past_prompts.append(text)
        self._history_index = None
        self.clear()
        self.post_message(self.Submitted(text))

    # ---- history ------------------------------------------------------------------------

    def _walk_history(self, step: int) -> None:
        if not self.past_prompts:
            return
        if self._history_index is None:
            if step > 0:
                return
            self._draft = self.text
            index = len(self.past_prompts) - 1
        else:
            index = self._history_index + step
        if index >= len(self.past_prompts):
            self._history_index = None
            self._load(self._draft)
        elif index >= 0:
            self._history_index = index
            self._load(self.past_prompts[index])

    def recall(self, text: str) -> None:
        """Put a past prompt in the box to edit and send (Ctrl+R's choice); what was typed
        before is the draft Down comes back to."""
        if self._history_index is None:
            self._draft = self.text
        self._history_index = len(self.past_prompts)
        self._load(text)

    def _load(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    # ---- completion ---------------------------------------------------------------------

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        event.stop()  # nothing above the prompt listens: a key need not pass up the tree

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        completions = self._completions()
        if completions or self.completion_list.shown:  # most keys have nothing to offer
            self.completion_list.show(completions)

    def _completions(self) -> list[Completion]:
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        if row == 0 and before.startswith("/") and " " not in before:
            # A name typed in full comes first: "/mode" is not a start of "/model".
            named = sorted((c for c in self.commands if c[0].startswith(before)),
                           key=lambda c: c[0] != before)
            return [Completion(len(before), name + " ", description, runs=True)
                    for name, description in named]
        if row == 0 and before.startswith(MODEL_COMMAND) and self.model_names is not None:
            return self._model_completions(before.removeprefix(MODEL_COMMAND))
        mention = MENTION.search(before)
        if mention is None:
            return []
        if self._paths is None or time.monotonic() - self._paths_read_at > PATHS_FRESH_S:
            self._index_workspace()  # the agent creates files: refresh now and then
        if not self._paths:
            return []
        fragment = mention.group(1)
        return [Completion(len(fragment) + 1, "@" + path + ("" if path.endswith("/") else " "))
                for path in match_paths(self._paths, fragment)]

    def _model_completions(self, fragment: str) -> list[Completion]:
        if " " in fragment.strip():
            return []
        fragment = fragment.lstrip()
        return [Completion(len(fragment), name)
                for name in match_models(self.model_names(), fragment)]

    def _index_workspace(self) -> None:
        # Keep the old list meanwhile; the walk's results arrive in a moment.
        self._paths = self._paths or []
        self._paths_read_at = time.monotonic()

        async def walk() -> None:
            self._paths = await asyncio.to_thread(workspace_files, self.workspace)
            self.completion_list.show(self._completions())

        self.run_worker(walk(), group="index-workspace", exclusive=True)

    def _catch_up_completions(self) -> None:
        """Keys that arrive in a burst (a paste, a fast typist) are ahead of the list, which
        follows the text one message later: offer what the text holds now. A list that is
        already current keeps the user's highlighted choice."""
        fresh = self._completions()
        if fresh != self.completion_list.completions:
            if fresh:
                self.completion_list.show(fresh)
            else:
                self.completion_list.hide()

    def _accept_completion(self) -> bool:
        chosen = self.completion_list.chosen()
        if chosen is None:
            return False
        row, column = self.cursor_location
        if self.document.get_line(row)[column - chosen.replace:column] == chosen.value.rstrip():
            self.completion_list.hide()
            return False  # already typed in full: Enter sends it
        self.replace(chosen.value, (row, column - chosen.replace), (row, column))
        if not chosen.value.endswith("/"):
            self.completion_list.hide()
        return True
