"""The Textual app: wiring only.

One worker follows ``session.events()`` and posts a ``SessionEvent`` per event; the
widgets draw them. Keys and commands become Session calls. Approvals are shown one at a
time as modal screens, the others wait in a queue ("1 of 3").
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import time
from collections.abc import Coroutine
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, getters, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import ModalScreen

from vibe_tui.commands import CommandRunner, VibeCommands, completions
from vibe_tui.core import events as ev
from vibe_tui.core.copy_targets import CopyTarget, save_copy, tool_output
from vibe_tui.core.model import preload, use_remote
from vibe_tui.core.model_process import ModelProcess
from vibe_tui.core.session import Session
from vibe_tui.policy.types import MODES
from vibe_tui.widgets.conversation import Conversation, ScrollMove
from vibe_tui.widgets.plan_view import PlanView
from vibe_tui.widgets.prompt_input import CompletionList, PromptInput
from vibe_tui.widgets.status_bar import StatusBar
from vibe_tui.widgets.timeline import Timeline
from vibe_tui.widgets.timeline_item import CopyCallOutput

if TYPE_CHECKING:
    from vibe_tui.screens.approval import ApprovalScreen
    from vibe_tui.screens.approval_choice import ApprovalChoice

DOUBLE_CTRL_C_S = 2.0
# This run's local model start: drawn live, never again from a resumed session's log.
MODEL_RUNTIME_EVENTS = (ev.ModelStarting, ev.ModelProgress, ev.ModelReady, ev.ModelFailed)
TERMINAL_KEYS_ACTIONS = ("ctrl_c", "cycle_mode", "changes")


class SessionEvent(Message):
    """One session event for the widgets; ``replay`` marks events from before the app."""

    def __init__(self, event: ev.Event, replay: bool) -> None:
        super().__init__()
        self.event = event
        self.replay = replay


class VibeApp(App[int]):
    CSS_PATH = "styles.tcss"
    TITLE = "vibe-tui"
    AUTO_FOCUS = "PromptInput"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    COMMANDS = App.COMMANDS | {VibeCommands}
    BINDINGS = [
        Binding("escape", "interrupt", "interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "interrupt, clear, quit", show=False, priority=True),
        Binding("shift+tab", "cycle_mode", "cycle mode", show=False, priority=True),
        Binding("ctrl+q", "quit", "quit", show=False, priority=True),
        # Priority: the prompt (a TextArea) would take it as "delete right".
        Binding("ctrl+d", "changes", "changes", show=False, priority=True),
        Binding("ctrl+r", "search_history", "search past prompts", show=False),
    ]

    conversation = getters.query_one(Conversation)
    timeline = getters.query_one(Timeline)
    status_bar = getters.query_one(StatusBar)
    prompt = getters.query_one(PromptInput)
    plan_view = getters.query_one(PlanView)

    def __init__(self, session: Session, web_port: int | None = None,
                 model_process: bool = False) -> None:
        super().__init__()
        self.session = session
        self.web_port = web_port  # None: no browser view; 0: any free port
        # The model calls in a process of their own (model_process.py), not on this loop.
        self.model_process: ModelProcess | None = None
        self._wants_model_process = model_process
        self.web_view = None  # the WebView once started
        self.commands = CommandRunner(self)
        self._last_ctrl_c = float("-inf")
        self._waiting: list[ev.ApprovalRequested] = []  # behind the one on screen
        self._shown: ApprovalScreen | None = None
        self._approvals_done = 0  # answered in the current run of approvals, for "2 of 3"

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield Conversation(id="conversation")
            yield Timeline(id="timeline")
        yield PlanView(id="plan")
        yield CompletionList(id="completions")
        yield PromptInput(self.session.workspace, completions(self.session.workspace), model_names=self._model_names,
                          id="prompt")
        yield StatusBar(self.session, id="status")

    def on_mount(self) -> None:
        self._follow_events()
        if self._wants_model_process:
            self._start_model_process()
        else:
            # LiteLLM takes seconds to import: only after the first frame is on screen. A
            # message sent before it is ready says it waits for it, from now on.
            self.call_after_refresh(self._preload, preload())
        # With no model configured the session boots the local one; what is sent meanwhile
        # waits for it there.
        self.run_worker(self.session.start_model(), group="local-model", exit_on_error=False)
        self.call_after_refresh(self.session.start_mcp)
        if self.web_port is not None:
            self._start_web_view()

    def _start_model_process(self) -> None:
        store = self.session.store_path
        self.model_process = ModelProcess(store.with_name("model-process.log") if store else None)
        # From here a message waits for the process's LiteLLM, and says so.
        use_remote(self.model_process)

        async def start() -> None:
            await self.model_process.start()
            await asyncio.to_thread(importlib.import_module, "vibe_tui.widgets.answer")
            gc.freeze()  # what start-up made lives on: full collections need not scan it

        self.call_after_refresh(self.run_worker, start(), group="preload", exit_on_error=False)

    @work(group="web-view", exit_on_error=False)
    async def _start_web_view(self) -> None:
        """The browser view on this app's own loop. Its link holds the run's token, so it
        is shown here and never becomes a session event (events go to the log)."""
        from vibe_tui.web.server import WebView

        self.web_view = WebView(self.session, self.web_port)
        try:
            url = await self.web_view.start()
        except OSError as exc:
            self.web_view = None
            self.conversation.add_entry(f"the web view could not start: {exc}", "-error")
            return
        self.status_bar.web_url = url
        self.conversation.add_entry(f"web view: {url}", "-notice")

    def _model_names(self) -> list[str]:
        from vibe_tui.core.model_listing import completion_models

        return completion_models(self.session.model, self.session.config.api_base)

    def open_settings(self) -> None:
        from vibe_tui.screens.settings import SettingsScreen

        self.push_screen(SettingsScreen(self.session), callback=self._settings_applied)

    def _settings_applied(self, result) -> None:
        if result is not None:
            self.conversation.add_entry(result.summary(), "-notice")

    @work(group="session-events")
    async def _follow_events(self) -> None:
        log = self.session.event_log
        replay_until = log[-1].id if log else 0
        async for event in self.session.events():
            self.post_message(SessionEvent(event, replay=event.id <= replay_until))

    def _preload(self, litellm: Coroutine[object, object, None]) -> None:
        async def load() -> None:
            # The answer widget (Rich Markdown) is the first answer's; LiteLLM the first call's.
            await asyncio.to_thread(importlib.import_module, "vibe_tui.widgets.answer")
            await litellm
            # LiteLLM leaves a great many long-lived objects: frozen, a full collection
            # no longer scans them all and stalls the screen mid-stream (bench/README.md).
            gc.freeze()

        self.run_worker(load(), group="preload", exit_on_error=False)

    async def on_session_event(self, message: SessionEvent) -> None:
        event = message.event
        if message.replay and isinstance(event, MODEL_RUNTIME_EVENTS):
            return
        try:
            await self.conversation.show_event(event, message.replay)
            self.timeline.show_event(event)
            self.plan_view.show_event(event)
            self.status_bar.show_event(event)
            self._show_model_start(event)
        except NoMatches:
            return  # the app is closing: its widgets are gone, the session log has it all
        if isinstance(event, (ev.ApprovalRequested, ev.ApprovalResolved)):
            self._follow_approval(event)

    def _show_model_start(self, event: ev.Event) -> None:
        """Why the local model starts, and why nothing will answer if it failed (the
        settings screen says so itself when the switch was chosen there)."""
        if isinstance(event, ev.ModelStarting) and event.cause == "unconfigured":
            self.conversation.add_entry(
                "No model is configured: starting the embedded local model (no key needed). "
                "/settings or --model chooses a provider.", "-notice")
        elif isinstance(event, ev.ModelFailed) and event.cause == "unconfigured":
            self.conversation.add_entry(f"The local model could not start: {event.error}",
                                        "-error")
            if event.held:  # kept in the prompt's history (↑): nothing typed is lost
                more = f" and {len(event.held) - 1} more" if event.held[1:] else ""
                self.conversation.add_entry(f"not sent, for want of a model (↑ brings it "
                                            f"back): {event.held[0]}{more}", "-notice")

    # ---- input --------------------------------------------------------------------------

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        await self.run_command_text(message.text)

    async def run_command_text(self, text: str) -> None:
        if CommandRunner.handles(text):
            await self.commands.run(text)
            return
        if self.session.running:
            self.notify("steering: read before the agent's next step", timeout=3)
        self.session.send(text)

    async def resume_session(self, path: Path | None) -> None:
        """Swap in a saved session (``/resume``): its events are drawn again from its log."""
        if path is None or path == self.session.store_path:
            return
        if self.session.running:
            self.notify("stop the running turn first (Esc), then /resume", severity="warning")
            return
        try:
            # The model in use now carries on: the saved one may need another endpoint.
            config = self.session.config.with_overrides(model=self.session.model or None)
            resumed = Session.resume(config, self.session.workspace, path, interactive=True)
        except (OSError, ValueError) as exc:
            self.conversation.add_entry(f"could not open that session: {exc}", "-error")
            return
        self.workers.cancel_group(self, "session-events")
        self.session.hand_model_to(resumed)  # the model in use carries on, server and all
        await self.session.close()
        self.session = resumed
        self.commands = CommandRunner(self)
        self._waiting, self._shown, self._approvals_done = [], None, 0
        await self.recompose()
        self.prompt.focus()
        self._follow_events()
        self.session.start_mcp()
        if self.web_view is not None:  # same port and token: open tabs reconnect to it
            await self.web_view.stop()
            self.web_view.session = resumed
            self.status_bar.web_url = await self.web_view.start()

    def on_timeline_call_selected(self, message: Timeline.CallSelected) -> None:
        item = self.conversation.tool_item(message.call_id)
        if item is not None:
            item.expanded = True
            self.conversation.scroll_to_widget(item, animate=False, top=True)

    # ---- keys ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # With a modal open (approval, palette) Esc and Shift+Tab belong to it.
        if action in ("interrupt", "cycle_mode", "changes", "search_history") and isinstance(
                self.screen, ModalScreen):
            return False
        # A focused terminal takes these keys for its program (Ctrl+D ends a REPL).
        if action in TERMINAL_KEYS_ACTIONS and self.focused is not None:
            from vibe_tui.widgets.terminal_view import TerminalView  # pyte: not at start-up

            if isinstance(self.focused, TerminalView):
                return False
        return True

    def on_key(self, event: events.Key) -> None:
        """A printable key that nothing else took, typed while Tab or a click had moved the
        focus off the prompt (to the conversation, a tool call, the timeline): it was meant
        for the prompt, so it goes there, and the prompt takes the keys that follow."""
        if not (event.is_printable and event.character) or self.screen is not self.screen_stack[0]:
            return
        if self.focused is self.prompt or event.key in self.active_bindings:
            return
        from vibe_tui.widgets.terminal_view import TerminalView  # pyte: not at start-up

        if isinstance(self.focused, TerminalView):
            return  # its keys are its program's
        event.stop()
        self.prompt.focus()
        self.prompt.insert(event.character)

    def action_scroll_conversation(self, where: ScrollMove) -> None:
        self.conversation.scroll_by_key(where)

    async def copy_text(self, target: CopyTarget) -> None:
        """To the terminal's clipboard (OSC 52), and to a file for terminals that ignore
        it: the notice names both, so a copy that went nowhere is never silent."""
        self.copy_to_clipboard(target.text)
        try:
            path = await asyncio.to_thread(save_copy, self.session.store_path, target.text)
        except OSError as exc:
            kept = f"not saved to a file: {exc}"
        else:
            kept = f"if your terminal ignores OSC 52 clipboard writes, it is also in {path}"
        lines = len(target.text.splitlines())
        self.conversation.add_entry(
            f"copied {target.what} ({lines} line{'' if lines == 1 else 's'}) · {kept}", "-notice")

    async def on_copy_call_output(self, message: CopyCallOutput) -> None:
        try:
            target = tool_output(self.session.event_log, message.call_id)
        except LookupError as exc:
            self.conversation.add_entry(str(exc), "-notice")
            return
        await self.copy_text(target)

    def action_search_history(self) -> None:
        from vibe_tui.screens.history_search import HistorySearch

        self.push_screen(HistorySearch(self.session.workspace, self.prompt.past_prompts),
                         callback=self._recall_prompt)

    def _recall_prompt(self, prompt: str | None) -> None:
        if prompt is not None:
            self.prompt.recall(prompt)
        self.prompt.focus()

    def action_interrupt(self) -> None:
        if self.session.interrupt():
            self.notify("interrupting…", timeout=2)

    async def action_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_CTRL_C_S:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        if self.session.interrupt():
            self.notify("interrupted · Ctrl+C again to quit", timeout=DOUBLE_CTRL_C_S)
        elif self.prompt.text:
            self.prompt.clear()
        else:
            self.notify("Ctrl+C again to quit", timeout=DOUBLE_CTRL_C_S)

    def action_changes(self) -> None:
        from vibe_tui.screens.changes import ChangesScreen

        if not isinstance(self.screen, ChangesScreen):
            self.push_screen(ChangesScreen(self.session))

    def action_cycle_mode(self) -> None:
        following = MODES[(MODES.index(self.session.mode) + 1) % len(MODES)]
        self.session.set_mode(following)

    async def action_quit(self) -> None:
        await self.session.close()
        self.exit(0)

    async def on_unmount(self) -> None:
        # However the app ended: the turn, its log and the local model's server are closed.
        await self.session.close()
        if self.web_view is not None:
            await self.web_view.stop()
        if self.model_process is not None:
            use_remote(None)
            await self.model_process.close()

    # ---- approvals ----------------------------------------------------------------------

    def _follow_approval(self, event: ev.ApprovalRequested | ev.ApprovalResolved) -> None:
        if isinstance(event, ev.ApprovalRequested):
            if self.session.approvals.get(event.approval_id) is not None:  # not a replay
                if self._shown is not None and self._shown.add_file(event):
                    return  # another file of the change on screen: listed there
                self._waiting.append(event)
        else:
            self._waiting = [a for a in self._waiting if a.approval_id != event.approval_id]
            shown = self._shown
            if shown is not None and shown.request.approval_id == event.approval_id:
                self._approvals_done += 1
                self._shown = None
                if event.answered_by != "tui":  # answered in another view, or by "always"
                    shown.settled_elsewhere(event.answered_by, event.decision)
            elif shown is not None and shown.covers(event.approval_id) and event.answered_by != "tui":
                shown.settled_elsewhere(event.answered_by, event.decision, event.approval_id)
        self._show_next_approval()

    def _show_next_approval(self) -> None:
        # An "always" answer may already have settled some of those waiting.
        self._waiting = [a for a in self._waiting
                         if self.session.approvals.get(a.approval_id) is not None]
        if self._shown is None and not self._waiting:
            self._approvals_done = 0
            return
        position = self._approvals_done + 1
        total = self._approvals_done + len(self._waiting) + (self._shown is not None)
        if self._shown is not None:
            self._shown.set_position(position, total)
            return
        from vibe_tui.screens.approval import ApprovalScreen

        request = self._waiting.pop(0)
        self._shown = ApprovalScreen(request, position=position, total=total)
        self.push_screen(self._shown, callback=partial(self._answer, request))

    def _answer(self, request: ev.ApprovalRequested, choice: ApprovalChoice | None) -> None:
        if choice is None:  # closed without an answer: it was settled elsewhere
            return
        # One screen may decide several files (each its own approval) at once.
        for approval_id, each in choice.answers(request.approval_id):
            hunks = None if each.hunks is None else list(each.hunks)
            outcome = self.session.answer(approval_id, each.decision, note=each.note, by="tui",
                                          mode=each.mode, hunks=hunks)
            if not outcome.accepted:
                self.conversation.add_entry(outcome.message, "-notice")


GC_THRESHOLDS = (20_000, 20, 20)


def run_tui(session: Session, web_port: int | None = None) -> int:
    """Run the full-screen app until the user quits; the exit code for the shell.
    ``web_port``: also serve the browser view (0: any free port)."""
    app = VibeApp(session, web_port, model_process=True)
    # Each frame of a streamed answer makes some 5,000 short-lived objects (Textual's
    # strips and their caches); at Python's default thresholds that set off a full
    # collection about once a second, 25-60 ms in the middle of a frame, while keys
    # waited (bench/README.md). Cycles are rare here: collect far less often.
    gc.set_threshold(*GC_THRESHOLDS)
    result = app.run()
    hint = resume_hint(app.session)
    if hint:
        print(hint)
    return result if isinstance(result, int) else (app.return_code or 0)


def resume_hint(session: Session) -> str | None:
    """What the shell shows once the screen is gone: the session's id and the command that
    takes it up again (/resume may have switched sessions: this is the one on screen at the
    end). None when nothing of it was saved."""
    path = session.store_path
    if path is None or not path.exists():
        return None
    return f"session {session.id} · resume it with: vibe-tui -r {session.id}"
