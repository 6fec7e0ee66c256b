"""The Session: the only door every view uses.

``send`` starts a turn or steers the running one, ``interrupt`` stops it, ``answer``
settles an approval (first answer wins) and ``events`` replays every event so far, then
follows live ones. The session writes each event to its JSONL file as it happens.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from vibe_tui.config import Config
from vibe_tui.core import events as ev
from vibe_tui.core import history
from vibe_tui.core.approvals import DECISIONS, Answer, AnswerOutcome, ApprovalBook
from vibe_tui.core.events import Event
from vibe_tui.core.model import ModelSettings
from vibe_tui.core.prompts import system_prompt
from vibe_tui.core.store import SessionStore, new_session_id, read_events
from vibe_tui.policy import Decision, PolicyContext, decide
from vibe_tui.policy.types import MODES, Mode
from vibe_tui.tools import default_tools
from vibe_tui.tools.base import Tool, ToolContext, ToolRequest

_CLOSED = object()


class Session:
    def __init__(
        self,
        config: Config,
        workspace: Path,
        *,
        tools: list[Tool] | None = None,
        persist: bool = True,
        interactive: bool = True,
        session_id: str | None = None,
        past_events: list[Event] | None = None,
        store_path: Path | None = None,
    ) -> None:
        self.config = config
        self.workspace = workspace.resolve()
        self.id = session_id or new_session_id()
        # Headless sessions have nobody to ask: an "ask" becomes a denial.
        self.interactive = interactive
        self.tools: dict[str, Tool] = {t.name: t for t in (tools or default_tools())}
        self.tool_context = ToolContext(
            workspace=self.workspace,
            bash_timeout_default_s=config.bash_timeout_s,
            bash_timeout_max_s=config.bash_timeout_max_s,
        )
        self.mode: Mode = config.mode
        self.model: str = config.model or ""
        self.grants: set[str] = set()
        self.approvals = ApprovalBook()
        self.system_prompt = system_prompt(self.workspace)
        self.messages: list[history.Message] = []
        self.session_cost = 0.0
        self.session_tokens = 0
        self._events: list[Event] = []
        self._subscribers: set[asyncio.Queue] = set()
        self._next_id = 1
        self._turn_id = 0
        self._turn_task: asyncio.Task | None = None
        self._steering: list[str] = []
        self._closed = False
        self._store = None
        if persist:
            self._store = SessionStore(store_path) if store_path else SessionStore.create(
                self.workspace, self.id)
        for event in past_events or []:
            self._restore(event)
        # Views that print only this run's events start after the restored ones.
        self.restored_until: int | None = past_events[-1].id if past_events else None
        if not past_events:
            self.emit(ev.SessionStarted, session_id=self.id, workspace=str(self.workspace),
                      model=self.model, mode=self.mode)

    @classmethod
    def resume(cls, config: Config, workspace: Path, path: Path, **kwargs: Any) -> Session:
        """A session rebuilt from its file; new events are appended to the same file."""
        past = read_events(path)
        return cls(config, workspace, session_id=path.stem, past_events=past,
                   store_path=path, **kwargs)

    # ---- the four doors -------------------------------------------------------------

    def send(self, text: str) -> int:
        """Start a turn, or steer the running one (read before its next model call).
        Returns the turn id the text belongs to."""
        if self._closed:
            raise RuntimeError("the session is closed")
        if self.running:
            self._steering.append(text)
            return self._turn_id
        from vibe_tui.core.loop import AgentLoop  # the loop needs the session's types

        self._turn_id += 1
        self._turn_task = asyncio.get_running_loop().create_task(
            AgentLoop(self, self._turn_id).run(text), name=f"turn-{self._turn_id}")
        return self._turn_id

    def interrupt(self) -> bool:
        """Stop the running turn: its processes are killed, its approvals denied, every
        open call answered. The session stays usable. False when nothing was running."""
        if not self.running:
            return False
        for pid in list(self.tool_context.running_pids):
            try:
                os.killpg(pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        self._turn_task.cancel()
        return True

    def answer(self, approval_id: str, decision: str, *, note: str | None = None,
               by: str = "user") -> AnswerOutcome:
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, not {decision!r}")
        pending = self.approvals.get(approval_id)
        outcome = self.approvals.settle(approval_id, Answer(decision, by, note))
        if outcome.accepted and pending is not None:
            self.emit(ev.ApprovalResolved, approval_id=approval_id, call_id=pending.call_id,
                      decision=decision, by=by, note=note)
            if decision == "always" and pending.grant:
                self.grants.add(pending.grant)
                self._settle_covered(by)
        return outcome

    async def events(self, after: int | None = None) -> AsyncIterator[Event]:
        """Every event with an id above ``after``, then live ones until the session closes."""
        queue: asyncio.Queue = asyncio.Queue()
        backlog = [e for e in self._events if after is None or e.id > after]
        self._subscribers.add(queue)
        try:
            for event in backlog:
                yield event
            while not (self._closed and queue.empty()):
                event = await queue.get()
                if event is _CLOSED:
                    return
                yield event
        finally:
            self._subscribers.discard(queue)

    # ---- state views read -----------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    @property
    def event_log(self) -> list[Event]:
        return list(self._events)

    @property
    def store_path(self) -> Path | None:
        return self._store.path if self._store else None

    def set_mode(self, mode: Mode) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if mode != self.mode:
            self.mode = mode
            self.emit(ev.ModeChanged, mode=mode)

    def set_model(self, model: str) -> None:
        """Applies from the next model call; the history is kept."""
        if model and model != self.model:
            self.model = model
            self.emit(ev.ModelChanged, model=model)

    def model_settings(self) -> ModelSettings:
        return ModelSettings(model=self.model, api_base=self.config.api_base,
                             api_key=self.config.api_key, timeout_s=self.config.model_timeout_s,
                             temperature=self.config.temperature)

    def policy_context(self) -> PolicyContext:
        return PolicyContext(mode=self.mode, workspace=self.workspace,
                             allow=list(self.config.allow), deny=list(self.config.deny),
                             ask=list(self.config.ask), grants=set(self.grants))

    def decide(self, request: ToolRequest) -> Decision:
        return decide(request, self.policy_context())

    def take_steering(self) -> list[str]:
        taken, self._steering = self._steering, []
        return taken

    def has_steering(self) -> bool:
        return bool(self._steering)

    async def wait_idle(self) -> None:
        if self._turn_task is not None:
            await asyncio.gather(self._turn_task, return_exceptions=True)

    async def close(self) -> None:
        if self.running:
            self.interrupt()
            await self.wait_idle()
        self._closed = True
        for queue in self._subscribers:
            queue.put_nowait(_CLOSED)
        if self._store:
            self._store.close()

    # ---- recording ------------------------------------------------------------------

    def emit(self, cls: type[Event], *, turn_id: int | None = None, **fields: Any) -> Event:
        """Create the next event, keep it, log it, apply it to the conversation, fan it out."""
        event = cls(id=self._next_id, turn_id=self._turn_id if turn_id is None else turn_id,
                    ts=time.time(), **fields)
        self._next_id += 1
        self._events.append(event)
        if self._store:
            self._store.append(event)
        history.apply(self.messages, event)
        for queue in self._subscribers:
            queue.put_nowait(event)
        return event

    def _restore(self, event: Event) -> None:
        """Replay one event from a saved file (not written again)."""
        self._events.append(event)
        self._next_id = max(self._next_id, event.id + 1)
        self._turn_id = max(self._turn_id, event.turn_id)
        history.apply(self.messages, event)
        if isinstance(event, ev.ModeChanged):
            self.mode = event.mode  # type: ignore[assignment]
        elif isinstance(event, ev.ModelChanged) and not self.config.model:
            self.model = event.model
        elif isinstance(event, ev.SessionStarted) and not self.model:
            self.model = event.model
        elif isinstance(event, ev.Usage):
            self.session_cost = event.session_cost
            self.session_tokens = event.session_tokens

    def _settle_covered(self, by: str) -> None:
        """After an "always" grant, other waiting approvals it covers are allowed too."""
        for pending in self.approvals.pending():
            if self.decide(pending.request).action == "allow":
                self.answer(pending.approval_id, "allow", by=f"{by} (always)")
