"""The one-line status bar: what the session runs with, and what it has cost so far."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from vibe_tui.core import events as ev
from vibe_tui.core.run_environment import (
    SandboxState,
    known_sandbox,
    probe_sandbox,
    venv_in_use,
    working_folder,
)

if TYPE_CHECKING:
    from vibe_tui.core.session import Session

# Each mode has its own colour so a glance tells whether edits run unasked.
MODE_STYLES = {
    "default": "$text-muted",
    "accept-edits": "$warning",
    "plan": "$accent",
    "yolo": "bold $error",
}
SEPARATOR = (" │ ", "$text-disabled")
SANDBOX_STYLES = {"no sandbox": "$warning", "commands refused": "$error"}
MODEL_PHASE_WORDS = {"download": "downloading", "verify": "verifying", "start": "loading"}


def short_path(path: Path | str) -> str:
    """The home folder as ``~``, so the interesting end of the path fits."""
    text = str(path)
    home = str(Path.home())
    if home != "/" and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home):]
    return text


def short_count(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def sandbox_label(state: SandboxState) -> str:
    if state.kind == "bubblewrap":
        return "sandbox"
    return "no sandbox" if state.kind == "host" else "commands refused"


def venv_label(session: Session) -> str:
    venv = venv_in_use(session)
    return f"venv {venv.name}" if venv is not None else ""


class StatusBar(Widget):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    model = reactive("")
    mode = reactive("default")
    tokens = reactive(0)
    cost = reactive(0.0)
    context_percent: reactive[int | None] = reactive(None)  # None until the first call
    sandbox = reactive("sandbox?")  # until the probe has answered
    venv = reactive("")
    web_url = reactive("")  # the browser view's link, token included: never in the log
    cwd = reactive("")
    running = reactive(False)
    # While the local model reads its request, how much it reads, instead of "working".
    activity = reactive("")

    def __init__(self, session: Session, **kwargs) -> None:
        super().__init__(**kwargs)
        self._session = session  # read only: the bar shows state, it never changes it
        self.set_reactive(StatusBar.model, session.model)
        self.set_reactive(StatusBar.mode, session.mode)
        self.set_reactive(StatusBar.tokens, session.session_tokens)
        self.set_reactive(StatusBar.cost, session.session_cost)
        self.set_reactive(StatusBar.cwd, short_path(working_folder(session)))
        self.set_reactive(StatusBar.venv, venv_label(session))
        if session.context_usage is not None:  # a resumed session's last figure
            self.set_reactive(StatusBar.context_percent, session.context_usage.percent)

    def on_mount(self) -> None:
        known = known_sandbox(self._session)
        if known is None:
            self._probe_sandbox()
        else:
            self._show_sandbox(known)

    @work(group="sandbox-probe", exit_on_error=False)
    async def _probe_sandbox(self) -> None:
        self._show_sandbox(await probe_sandbox(self._session))

    def _show_sandbox(self, state: SandboxState) -> None:
        self.sandbox = sandbox_label(state)
        self.tooltip = state.detail

    def show_event(self, event: ev.Event) -> None:
        """Follow the session's own record of what changed."""
        if isinstance(event, ev.ModeChanged):
            self.mode = event.mode
        elif isinstance(event, ev.ModelChanged):
            self.model = event.model
        elif isinstance(event, ev.ModelProgress):
            percent = f" {100 * event.done // event.total}%" if event.total else ""
            self.model = f"local model: {MODEL_PHASE_WORDS[event.phase]}{percent}"
        elif isinstance(event, (ev.ModelReady, ev.ModelFailed)):
            self.model = self._session.model  # the progress shown meanwhile is over
        elif isinstance(event, ev.Usage):
            self.tokens = event.session_tokens
            self.cost = event.session_cost
        elif isinstance(event, ev.PromptProgress) and event.parent_call_id is None:
            done = event.done >= event.total
            self.activity = "" if done else (f"reading the prompt: {100 * event.done // event.total}%"
                                             f" of {event.total:,} tokens")
        elif isinstance(event, (ev.TextDelta, ev.ToolCall, ev.AssistantMessage)):
            self.activity = ""
        elif isinstance(event, ev.TurnStarted):
            self.running = True
        elif isinstance(event, ev.TurnEnded):
            self.running = False
            self.activity = ""
        elif isinstance(event, ev.ContextUsage) and event.parent_call_id is None:
            self.context_percent = event.percent
        elif isinstance(event, ev.ToolResult):
            # A shell `cd` moves the session's working folder; a command may make a venv.
            self.cwd = short_path(working_folder(self._session))
            self.venv = venv_label(self._session)

    def render(self) -> Content:
        context = "–" if self.context_percent is None else f"{self.context_percent}%"
        parts: list[str | tuple[str, str]] = []
        if self.running:
            parts += [(f"● {self.activity or 'working'}", "bold $success"),
                      ("  esc to stop", "$text-disabled"),
                      SEPARATOR]
        parts += [
            (self.model or "no model", "bold $text"), SEPARATOR,
            (self.mode, MODE_STYLES.get(self.mode, "")), SEPARATOR,
            f"ctx {context}", SEPARATOR,
            f"{short_count(self.tokens)} tok", SEPARATOR,
            f"${self.cost:.2f}", SEPARATOR,
            (self.sandbox, SANDBOX_STYLES.get(self.sandbox, "")), SEPARATOR,
        ]
        if self.venv:
            parts += [self.venv, SEPARATOR]
        if self.web_url:
            parts += [("web", f"underline $accent link {self.web_url}"), SEPARATOR]
        head = Content.assemble(*parts)
        room = max(0, self.content_region.width - head.cell_length)
        return Content.assemble(head, (self._fit_path(room), "$text-muted"))

    def _fit_path(self, room: int) -> str:
        """The working folder, cut from the left when the bar is short of room."""
        if len(self.cwd) <= room:
            return self.cwd
        return "…" + self.cwd[-(room - 1):] if room > 1 else ""
