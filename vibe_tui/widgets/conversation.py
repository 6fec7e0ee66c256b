"""The conversation pane: what the user said, what the model answered, what its tools did.

It draws session events and nothing else. Answers stream into a Markdown AnswerView (see
answer.py, imported on the first answer); a replayed session (``--resume``) has no live
stream, so its answers are drawn whole from their AssistantMessage.

Entries are grouped, one group per turn: when something changes, Textual re-measures the
changed group, while finished turns keep their cached arrangement. The oldest groups are
unmounted past MAX_ENTRIES, so a long session stays about as fast as a new one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

from vibe_tui.core import events as ev
from vibe_tui.core.hook_lines import hook_line, worth_a_line
from vibe_tui.safe_text import safe
from vibe_tui.widgets.sizes import laid_out_size
from vibe_tui.widgets.timeline_item import ToolCallItem

if TYPE_CHECKING:
    from vibe_tui.widgets.answer import StreamedAnswer

# Beyond this many entries the oldest groups are unmounted: each layout visits every
# mounted widget (an answer is ~10), so the cap bounds the cost of a frame; 120 entries are
# about twenty turns to scroll back through, and the session file keeps everything.
# Pruning waits for some slack so it runs once per batch, not once per entry.
MAX_ENTRIES = 120
PRUNE_SLACK = 20
TURN_ENDINGS = {
    "interrupted": ("■ interrupted", "-interrupted"),
    "failed": ("✗ failed", "-failed"),
    "limit": ("◆ limit", "-limit"),
}
ScrollMove = Literal["page_up", "page_down", "top", "bottom"]
WELCOME = "vibe-tui · type a task and press Enter · / for commands · @ to mention a file"


class Entry(Static):
    """A line of the conversation that is not Markdown: prompts, notices, errors."""

    virtual_size = laid_out_size()

    DEFAULT_CSS = """
    Entry {
        height: auto;
        padding: 0 1;
        margin-bottom: 1;
        &.-user { background: $boost; color: $text; text-style: bold; padding: 0 1; }
        &.-steering { color: $accent; margin-bottom: 0; }
        &.-notice { color: $text-muted; }
        &.-welcome { color: $text-disabled; }
        &.-error { color: $error; }
        &.-retrying { color: $error 60%; }
        &.-interrupted, &.-limit { color: $warning; }
        &.-failed { color: $error; text-style: bold; }
        &.-shell { color: $text-muted; background: $surface; }
    }
    """


class EntryGroup(Vertical):
    """The entries of one turn (or of the commands between two turns)."""

    virtual_size = laid_out_size()

    DEFAULT_CSS = """
    EntryGroup { height: auto; }
    """


class Conversation(VerticalScroll):
    virtual_size = laid_out_size()
    DEFAULT_CSS = """
    Conversation {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        & ToolCallItem.-nested { margin-left: 4; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._answer: StreamedAnswer | None = None
        self._tool_items: dict[str, ToolCallItem] = {}
        # The last nested item under each task call: a sub-agent's next call goes after it.
        self._nested_tail: dict[str, ToolCallItem] = {}
        self._awaiting_prompt = False  # the next UserMessage is the turn's own prompt
        self._group: EntryGroup | None = None
        self._entry_count = 0

    def on_mount(self) -> None:
        self.add_entry(WELCOME, "-welcome")

    def watch_virtual_size(self, size: Size) -> None:
        # Follow new output until the user scrolls up. Anchoring only once the content
        # overflows: an anchored pane pins short content to its bottom edge.
        if not self.is_anchored and size.height > self.scrollable_content_region.height:
            self.anchor()

    def scroll_by_key(self, where: ScrollMove) -> None:
        """A page or all the way, without animation: a held key repeats faster than one."""
        if where == "page_up":
            self.scroll_page_up(animate=False)
        elif where == "page_down":
            self.scroll_page_down(animate=False)
        elif where == "top":
            self.scroll_home(animate=False)
        else:
            self.scroll_end(animate=False)  # and follows new output again

    # ---- events -------------------------------------------------------------------------

    async def show_event(self, event: ev.Event, replay: bool = False) -> None:
        if event.parent_call_id is not None:
            self._show_subagent_event(event)
        elif isinstance(event, ev.TextDelta):
            if not replay:
                self._stream_text(event.text)
        elif isinstance(event, ev.AssistantMessage):
            await self._finish_answer(event)
        elif isinstance(event, ev.TurnStarted):
            await self._stop_stream()
            self._awaiting_prompt = True
            self._group = None  # the turn starts a group of its own
        elif isinstance(event, ev.UserMessage):
            self._show_user(event)
        elif isinstance(event, ev.ToolCall):
            await self._stop_stream()
            self._add_tool_item(event)
        elif isinstance(event, (ev.ApprovalRequested, ev.ApprovalResolved, ev.ToolResult)):
            self._update_tool_item(event)
        elif isinstance(event, ev.TurnEnded):
            await self._stop_stream()
            self._show_turn_end(event)
        elif isinstance(event, ev.Error):
            self.add_entry(f"⚠ {event.message}", "-error -retrying" if event.retrying else "-error")
        elif isinstance(event, ev.Notice):
            self.add_entry(event.text, "-notice")
        elif isinstance(event, ev.Compacted):
            self.add_entry(compacted_text(event), "-notice")
        elif isinstance(event, ev.HookRan) and worth_a_line(event):
            self.add_entry(safe(hook_line(event)),
                           "-notice" if event.status == "ok" else "-error")

    def _show_user(self, event: ev.UserMessage) -> None:
        if event.steering:
            self.add_entry(f"↳ steering: {event.text}", "-steering")
        elif self._awaiting_prompt:
            self._awaiting_prompt = False
            self.add_entry(f"› {event.text}", "-user")
        else:  # the loop itself nudging the model (an empty answer)
            self.add_entry(f"↳ vibe-tui: {event.text}", "-notice")

    def _show_turn_end(self, event: ev.TurnEnded) -> None:
        if event.state == "completed":
            return
        label, style = TURN_ENDINGS.get(event.state, (event.state, "-failed"))
        if event.message and event.state != "interrupted":
            label = f"{label}: {event.message}"
        self.add_entry(label, style)

    # ---- streamed answers ---------------------------------------------------------------

    def _stream_text(self, text: str) -> None:
        if self._answer is None:
            from vibe_tui.widgets.answer import AnswerView, StreamedAnswer

            view = AnswerView(streaming=True)
            self._answer = StreamedAnswer(view, self._mount_entry(view), owner=self)
        self._answer.add(text)

    async def _finish_answer(self, event: ev.AssistantMessage) -> None:
        if self._answer is not None:
            await self._stop_stream()  # its text is already on screen
        elif event.text.strip():
            from vibe_tui.widgets.answer import AnswerView

            self._mount_entry(AnswerView(safe(event.text)))

    async def _stop_stream(self) -> None:
        answer, self._answer = self._answer, None
        if answer is not None:
            await answer.finish()

    # ---- tool calls ---------------------------------------------------------------------

    def _add_tool_item(self, event: ev.ToolCall) -> None:
        item = ToolCallItem(event)
        self._tool_items[event.call_id] = item
        self._mount_entry(item)

    def _update_tool_item(self, event: ev.Event) -> None:
        item = self._tool_items.get(getattr(event, "call_id", ""))
        if item is not None:
            item.show_event(event)
        if isinstance(event, ev.ApprovalResolved) and event.answered_by != "tui":
            tool = item.call.tool if item is not None else "a tool call"
            self.add_entry(settled_elsewhere_text(event, tool), "-notice")

    def _show_subagent_event(self, event: ev.Event) -> None:
        """A sub-agent's calls nest under its ``task`` call; its text does not stream here:
        only its final report counts, and that is the task call's result."""
        if isinstance(event, ev.ToolCall):
            self._add_nested_item(event)
        elif isinstance(event, (ev.ApprovalRequested, ev.ApprovalResolved, ev.ToolResult)):
            self._update_tool_item(event)
        elif isinstance(event, ev.Error) and not event.retrying:
            self.add_entry(f"⚠ sub-agent: {event.message}", "-error")

    def _add_nested_item(self, event: ev.ToolCall) -> None:
        item = ToolCallItem(event)
        item.add_class("-nested")
        parent_item = self._tool_items.get(event.parent_call_id or "")
        anchor = self._nested_tail.get(event.parent_call_id or "", parent_item)
        self._tool_items[event.call_id] = item
        if anchor is None or anchor.parent is None:  # the task call was pruned or cleared
            self._mount_entry(item)
            return
        anchor.parent.mount(item, after=anchor)
        self._nested_tail[event.parent_call_id] = item
        self._entry_count += 1

    def tool_item(self, call_id: str) -> ToolCallItem | None:
        return self._tool_items.get(call_id)

    # ---- entries ------------------------------------------------------------------------

    def add_entry(self, text: str, classes: str) -> Entry:
        """A plain line of text; it is never read as markup."""
        entry = Entry(Content(safe(text)), classes=classes)
        self._mount_entry(entry)
        return entry

    def _mount_entry(self, widget: Widget) -> AwaitMount:
        if self._group is None:
            self._group = EntryGroup()
            self.mount(self._group)
        mounted = self._group.mount(widget)
        self._entry_count += 1
        if self._entry_count > MAX_ENTRIES + PRUNE_SLACK:
            self._prune()
        return mounted

    def _prune(self) -> None:
        """Unmount the oldest groups (never the current one) down to MAX_ENTRIES."""
        old: list[Widget] = []
        for group in self.children:
            if group is self._group or self._entry_count <= MAX_ENTRIES:
                break
            old.append(group)
            self._entry_count -= len(group.children)
        for item in self.query(ToolCallItem):
            if any(item.parent is group for group in old):
                self._tool_items.pop(item.call_id, None)
                self._nested_tail.pop(item.call_id, None)
        self.remove_children(old)

    def entries(self) -> list[Widget]:
        """Every mounted entry, oldest first."""
        return [entry for group in self.children for entry in group.children]

    async def clear_view(self) -> None:
        """Empty the pane; the session and its history are untouched."""
        await self._stop_stream()
        self._tool_items.clear()
        self._nested_tail.clear()
        self._group = None
        self._entry_count = 0
        await self.remove_children()
        self.anchor(False)


def settled_elsewhere_text(event: ev.ApprovalResolved, tool: str) -> str:
    words = {"allow": "allowed", "always": "always allowed", "deny": "denied"}
    decision = words.get(event.decision, event.decision)
    if event.answered_by == "interrupt":
        return f"approval for {tool} withdrawn: the turn was interrupted"
    if event.answered_by.endswith("(accept-edits)"):
        return f"{tool} allowed: edits are accepted from now on"
    if event.answered_by.endswith("(always)"):
        return f"{tool} {decision} by an earlier “always” answer"
    note = f" ({event.note})" if event.note else ""
    return f"approval for {tool} answered in {event.answered_by}: {decision}{note}"


def compacted_text(event: ev.Compacted) -> str:
    words = {"stub": "old tool results stubbed", "summary": "older turns summarised",
             "cut": "a large result cut"}
    done = ", ".join(words.get(step, step) for step in event.steps) or "nothing to free"
    how = "by /compact" if event.reason == "manual" else "before the window filled"
    return (f"context compacted {how}: {done} · {event.tokens_before:,} → "
            f"{event.tokens_after:,} tokens of {event.window:,}")
