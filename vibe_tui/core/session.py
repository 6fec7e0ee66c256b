"""The Session: the only door every view uses.

``send`` starts a turn or steers the running one, ``interrupt`` stops it, ``answer``
settles an approval (first answer wins) and ``events`` replays every event so far, then
follows live ones. The session writes each event to its JSONL file as it happens, and one
line per model and tool call to its call log beside it. ``compact`` frees context by hand
(``/compact``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core import history, step_warmup, undo
from vibe_tui.core.agents_md import MemoryWatch
from vibe_tui.core.approvals import DECISIONS, Answer, AnswerOutcome, ApprovalBook, PendingApproval
from vibe_tui.core.attachments import Attachments
from vibe_tui.core.calllog import CallLog, call_log_path
from vibe_tui.core.changes import ChangeRecord
from vibe_tui.core.checkpoints import Checkpoints, RewindStep
from vibe_tui.core.context import ContextTracker
from vibe_tui.core.events import AnsweredBy, ApprovalDecision, CoveredBy, Event
from vibe_tui.core.loop import INTERRUPTED, AgentLoop
from vibe_tui.core.step_mode import turn_loop
from vibe_tui.core.resume import closing_events
from vibe_tui.core.scope import Scope, TurnOptions
from vibe_tui.core.settings import compaction_settings, model_settings, sandbox_note
from vibe_tui.mcp import McpManager, McpServer
from vibe_tui.core.model import ModelSettings
from vibe_tui.core.model_runtime import ModelRuntime
from vibe_tui.core.prompts import system_prompt
from vibe_tui.core.state import SessionState
from vibe_tui.core.steering import Steering
from vibe_tui.core.store import SessionStore, new_session_id, read_events
from vibe_tui.core.subagent import run_subagent
from vibe_tui.policy.types import MODES, Decision, Mode, PolicyContext, ToolRequest
from vibe_tui.tools import default_tools
from vibe_tui.tools.base import Tool, ToolContext
from vibe_tui.tools.processes import signal_group
from vibe_tui.tools.task import TaskTool

E = TypeVar("E", bound=Event)
T = TypeVar("T")
_CLOSED = object()
# How long a turn waits for MCP servers still starting before it goes on without them.
MCP_TURN_WAIT_S = 15.0


class Session:
    def __init__(self, config: Config, workspace: Path, *, tools: list[Tool] | None = None,
                 persist: bool = True, interactive: bool = True, session_id: str | None = None,
                 past_events: list[Event] | None = None, store_path: Path | None = None,
                 mcp: McpManager | None = None) -> None:
        self.config = config
        self.workspace = workspace.resolve()
        self.id = session_id or new_session_id()
        # Headless sessions have nobody to ask: an "ask" becomes a denial.
        self.interactive = interactive
        self.tools: dict[str, Tool] = {t.name: t for t in (tools or default_tools())}
        if tools is None:
            self.tools.setdefault("task", TaskTool())
        # MCP servers from the config files: started by start_mcp(), never here; their
        # tools join self.tools as each server becomes ready.
        self.mcp = mcp if mcp is not None else McpManager.for_workspace(self.workspace)
        self.mcp.add_listener(self._mcp_changed)
        self.tool_context = ToolContext(
            workspace=self.workspace,
            bash_timeout_default_s=config.bash_timeout_s,
            bash_timeout_max_s=config.bash_timeout_max_s,
            sandbox_mode=config.sandbox,
            sandbox_network=config.sandbox_network,
            allow_host=config.allow_host,
            pass_env=tuple(config.sandbox_pass_env),
            hide_paths=tuple(config.sandbox_hide),
            read_deny=tuple(config.deny),
        )
        # Cost, mode, model, grants: derived from the events, live and on resume alike.
        self.state = SessionState(mode=config.mode, model=config.model or "")
        self.approvals = ApprovalBook()
        # What the agent's edits changed since the session started (/diff, reverts).
        self.changes = ChangeRecord(self.workspace)
        # The local model when no other is configured (start_model); stopped by close().
        self.model_runtime = ModelRuntime(self.emit, self.configure, self.send, warm=lambda server:
                                          step_warmup.warm_prefix(self, server))
        self.memory = MemoryWatch(self.workspace, self.tool_context.cwd, self.emit)
        self.attachments = Attachments(self.tool_context, self.decide)  # @files, !output
        self._sandbox_note = sandbox_note(self.tool_context, config.sandbox_network)
        self.messages: list[history.Message] = []
        self.context = ContextTracker(config)
        self._compact_request: tuple[str | None] | None = None
        self._events: list[Event] = []
        self._subscribers: set[asyncio.Queue] = set()
        self._next_id = 1
        self._turn_id = 0
        self._turn_task: asyncio.Task | None = None
        self.steering = Steering()
        self._closed = False
        self._store = None
        if persist:
            self._store = SessionStore(store_path) if store_path else SessionStore.create(
                self.workspace, self.id)
        self.call_log = CallLog(call_log_path(self._store.path) if self._store else None,
                                self.id)
        self.checkpoints = Checkpoints(
            self.workspace, self._store.path.with_suffix(".checkpoints") if self._store else None)
        for event in past_events or []:
            self._restore(event)
        if past_events:
            self._settle_restored(config)
        # Views that print only this run's events start after the restored ones.
        self.restored_until: int | None = self._events[-1].id if past_events else None
        if not past_events:
            self.emit(ev.SessionStarted(session_id=self.id, workspace=str(self.workspace),
                      model=self.model, mode=self.mode))

    @classmethod
    def resume(cls, config: Config, workspace: Path, path: Path, **kwargs: Any) -> Session:
        """A session rebuilt from its file; new events are appended to the same file."""
        past = read_events(path)
        return cls(config, workspace, session_id=path.stem, past_events=past,
                   store_path=path, **kwargs)

    # ---- the four doors -------------------------------------------------------------

    def send(self, text: str, options: TurnOptions | None = None) -> int:
        """Start a turn, or steer the running one (read before its next model call).
        Returns the turn id the text belongs to. ``options`` count for a new turn only."""
        if self._closed:
            raise RuntimeError("the session is closed")
        if self.model_runtime.starting:  # sent, in order, once the local model is ready
            return self.model_runtime.hold(text, self._turn_id + 1)
        if self.running:
            self.steering.typed(text)
            return self._turn_id
        self.start_mcp()
        self._turn_id += 1
        self._turn_task = asyncio.get_running_loop().create_task(
            self._run_turn(self._turn_id, text, options), name=f"turn-{self._turn_id}")
        return self._turn_id

    async def _run_turn(self, turn_id: int, text: str, options: TurnOptions | None) -> None:
        """One turn. While MCP servers are still starting it first waits for them (a
        bounded while), so the model's first call already lists their tools."""
        if self.mcp.starting:
            names = ", ".join(s.name for s in self.mcp.servers.values() if s.state == "starting")
            self.emit(ev.Notice(text=f"waiting for MCP servers to start: {names}"))
            try:
                await self.mcp.wait_settled(MCP_TURN_WAIT_S)
            except asyncio.CancelledError:  # interrupted while waiting: the prompt is kept
                self.emit(ev.TurnStarted(prompt=text))
                self.emit(ev.UserMessage(text=text))
                self.emit(ev.TurnEnded(state="interrupted", message=INTERRUPTED))
                return
        scope = self.main_scope(options or TurnOptions())
        loop = turn_loop(self, turn_id, scope, self.model_runtime.warmed)
        await loop.run(text, self.attachments)

    async def start_model(self) -> bool:
        """Boot the local model if none is configured (once); False if it failed (ModelFailed)."""
        boot = None if self._closed else self.model_runtime.boot(self.model, self.config)
        return boot is None or await asyncio.shield(boot)

    async def local_model_endpoint(self, name: str) -> tuple[str, str, str]:
        """The settings screen's switch to the local model ``name``: (model, base URL, key)."""
        return await self.model_runtime.endpoint(name)

    def hand_model_to(self, other: Session) -> None:
        """``/resume`` in the app: the local model's server carries on with ``other``."""
        self.model_runtime.hand_over(other.model_runtime)

    def start_mcp(self) -> None:
        """Start the configured MCP servers in the background, once (views call this after
        their first frame; ``send`` does too). Needs the running event loop."""
        if self._closed or self.mcp.started:
            return
        for problem in self.mcp.problems:
            self.emit(ev.Notice(text=problem))
        self.mcp.start()

    def _mcp_changed(self, server: McpServer, note: str | None) -> None:
        """A server changed: its tools in self.tools are replaced by what it has now (none
        unless ready). The loop lists self.tools when it starts a turn."""
        from vibe_tui.tools.mcp import McpTool

        for name, tool in list(self.tools.items()):
            if isinstance(tool, McpTool) and tool.server == server.name:
                del self.tools[name]
        for tool in server.tools:
            self.tools.setdefault(tool.name, tool)
        if note and not self._closed:
            self.emit(ev.Notice(text=note))

    def interrupt(self) -> bool:
        """Stop the running turn: its processes are killed, its approvals denied, every
        open call answered. The session stays usable. False when nothing was running."""
        if not self.running:
            return False
        for pid in list(self.tool_context.running_pids):
            signal_group(pid, signal.SIGTERM)
        for text in self.steering.drop_typed():  # a later turn must not read them
            self.emit(ev.Notice(text=f"not sent, the turn was stopped: {text}"))
        self._turn_task.cancel()
        return True

    def answer(self, approval_id: str, decision: ApprovalDecision, *, note: str | None = None,
               by: AnsweredBy = "user", hunks: list[int] | None = None,
               mode: Mode | None = None) -> AnswerOutcome:
        """Settle an approval. For an edit, ``hunks`` names the hunks of its diff to apply
        (None: all). ``mode`` switches the session's mode with the answer (``a`` on an
        edit: accept edits from now on), and settles what the new mode allows."""
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, not {decision!r}")
        if mode is not None and mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if hunks is not None and not all(isinstance(h, int) and h >= 0 for h in hunks):
            raise ValueError("hunks must be a list of hunk indexes (0 or more)")
        return self._settle(approval_id, Answer(decision, by, note, hunks), mode)

    def _settle(self, approval_id: str, answer: Answer,
                mode: Mode | None = None) -> AnswerOutcome:
        pending = self.approvals.get(approval_id)
        outcome = self.approvals.settle(approval_id, answer)
        if outcome.accepted and pending is not None:
            asked = self.state.open_approvals.get(approval_id)
            self.emit(ev.ApprovalResolved(
                approval_id=approval_id, call_id=pending.call_id, decision=answer.decision,
                by=answer.by, note=answer.note, hunks=answer.hunks,
                covered_by=answer.covered_by,
                parent_call_id=asked.parent_call_id if asked else None))
            if answer.decision == "always" and pending.grant:
                self._settle_covered(answer.by, "always")  # the grant is in self.state now
            if mode is not None and mode != self.mode:
                self.set_mode(mode)
                self._settle_covered(answer.by, mode)  # what the new mode no longer asks
        return outcome

    async def revert(self, rel: str, hunk: int | None = None) -> str:
        """Undo the session's changes to ``rel``, or hunk ``hunk`` of its cumulative diff
        (``changes.files()``); raises ``ChangeError`` (a ValueError) when it cannot."""
        return await undo.revert(self, rel, hunk)

    async def recorded(self, run: Callable[[], Awaitable[T]]) -> T:
        """Run the user's own command (``!cmd``), recording what it changed as the agent's
        commands are (under the last turn, 0 before the first)."""
        result, notes = await undo.recorded_command(self.changes, self.checkpoints,
                                                    self._turn_id, run)
        for note in notes:
            self.emit(ev.Notice(text=note))
        return result

    async def rewind_plan(self, turn_id: int) -> list[RewindStep]:
        """What ``rewind(turn_id)`` would do (``/rewind`` shows it before asking)."""
        return await undo.rewind_plan(self, turn_id)

    async def rewind(self, turn_id: int) -> list[str]:
        """Put the files changed in turn ``turn_id`` and later back as they were before it
        (works after ``--resume`` too). Raises ValueError when it cannot."""
        return await undo.rewind(self, turn_id)

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
    def mode(self) -> Mode:
        return self.state.mode

    @property
    def model(self) -> str:
        return self.state.model

    @property
    def grants(self) -> set[str]:
        return self.state.grants

    @property
    def session_cost(self) -> float:
        return self.state.cost

    @property
    def session_tokens(self) -> int:
        return self.state.tokens

    @property
    def context_usage(self) -> ev.ContextUsage | None:
        return self.state.context_usage

    @property
    def running(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    @property
    def event_log(self) -> list[Event]:
        return list(self._events)

    @property
    def store_path(self) -> Path | None:
        return self._store.path if self._store else None

    @property
    def call_log_path(self) -> Path | None:
        """Where ``/log`` points: one JSON line per model call and per tool call."""
        return self.call_log.path

    def memory_report(self) -> str:
        """For ``/memory``: which AGENTS.md files are in the system prompt, from where."""
        return self.memory.current().describe()

    async def compact(self, focus: str | None = None) -> ev.Compacted | None:
        """Summarise the conversation by hand (``/compact [focus]``); the Compacted event
        (token counts before and after), or None when there was too little to compact.
        During a turn it happens before the turn's next model call, and this returns None."""
        if self._closed:
            raise RuntimeError("the session is closed")
        if self.running:
            self._compact_request = (focus,)
            return None
        if not self.model:
            self.emit(ev.Notice(text="no model is configured: nothing can write a summary"))
            return None
        event = await AgentLoop(self, self._turn_id, self.main_scope()).compact("manual", focus)
        if event is None:
            self.emit(ev.Notice(text="nothing to compact yet: the conversation is short"))
        return event

    def take_compact_request(self) -> tuple[str | None] | None:
        """A ``/compact`` sent during the turn, for the loop to do before its next call."""
        taken, self._compact_request = self._compact_request, None
        return taken

    def set_mode(self, mode: Mode) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if mode != self.mode:
            self.emit(ev.ModeChanged(mode=mode))

    def set_model(self, model: str) -> None:
        """Applies from the next model call; the history is kept."""
        if model and model != self.model:
            self.emit(ev.ModelChanged(model=model))

    def configure(self, **overrides: Any) -> None:
        """Change settings (endpoint, key, temperature, window...) from the next model call;
        ``model`` among them is announced like ``set_model``. For the settings screen and
        the local model, which is ready only after the session has started."""
        model = overrides.get("model")
        self.config = self.config.with_overrides(**overrides)
        self.tool_context.read_deny = tuple(self.config.deny)
        self.context.config = self.config
        self.context.forget_windows()
        if model:
            self.set_model(model)

    def model_settings(self) -> ModelSettings:
        return model_settings(self.config, self.model)

    def compaction_settings(self, max_tokens: int) -> ModelSettings:
        return compaction_settings(self.config, self.model, max_tokens)

    @property
    def system_prompt(self) -> str:
        """Byte-identical from turn to turn while the settings and AGENTS.md hold (the local
        model's are set once, when it is ready, before its first turn)."""
        return (system_prompt(self.workspace, self.memory.current().prompt, self.config.subagents_on)
                + self._sandbox_note)

    def main_scope(self, options: TurnOptions = TurnOptions()) -> Scope:
        """What the main agent works with (a sub-agent gets a scope of its own)."""
        tools = self.tools
        # A copy: an MCP server that becomes ready mid-turn joins at the next turn here.
        if not self.config.subagents_on and "task" in tools:
            tools = {name: tool for name, tool in tools.items() if name != "task"}
        return Scope(messages=self.messages, tools=tools, tool_context=self.tool_context,
                     system_prompt=self.system_prompt, context=self.context,
                     max_steps=self.config.max_steps, options=options)

    def policy_context(self) -> PolicyContext:
        return PolicyContext(mode=self.mode, workspace=self.workspace,
                             allow=list(self.config.allow), deny=list(self.config.deny),
                             ask=list(self.config.ask), grants=set(self.grants))

    def decide(self, request: ToolRequest, allow: tuple[str, ...] = ()) -> Decision:
        from vibe_tui.policy.decide import decide  # tree-sitter: not on the start-up path

        policy = self.policy_context()
        policy.allow += allow  # a turn's own rules (TurnOptions); deny still wins
        return decide(request, policy)

    def ask(self, call_id: str, request: ToolRequest, grant: str | None) -> PendingApproval:
        return self.approvals.open(call_id, request, grant)

    def pending_approvals(self) -> list[PendingApproval]:
        return self.approvals.pending()

    async def run_subagent(self, turn_id: int, parent_call_id: str, prompt: str) -> str:
        return await run_subagent(self, turn_id, parent_call_id, prompt)

    def take_steering(self) -> list[str]:
        return self.steering.take()

    def has_steering(self) -> bool:
        return bool(self.steering)

    async def wait_idle(self) -> None:
        if self._turn_task is not None:
            await asyncio.gather(self._turn_task, return_exceptions=True)

    async def close(self) -> None:
        if self.running:
            self.interrupt()
            await self.wait_idle()
        from vibe_tui.tools.interactive import close_all  # pseudo-terminals end with us

        await close_all(self.tool_context)
        await self.mcp.close()
        await self.model_runtime.close()
        self._closed = True
        for queue in self._subscribers:
            queue.put_nowait(_CLOSED)
        if self._store:
            self._store.close()
        self.call_log.close()

    # ---- recording ------------------------------------------------------------------

    def emit(self, event: E, *, turn_id: int | None = None) -> E:
        """Number the event (in the running turn unless ``turn_id`` says otherwise), keep
        it, log it, apply it to the conversation, fan it out."""
        event = dataclasses.replace(
            event, id=self._next_id, ts=time.time(),
            turn_id=self._turn_id if turn_id is None else turn_id)
        self._next_id += 1
        self._events.append(event)
        if self._store:
            self._store.append(event)
        self._take_in(event)
        for queue in self._subscribers:
            queue.put_nowait(event)
        return event

    def _restore(self, event: Event) -> None:
        """Replay one event from a saved file (not written again)."""
        self._events.append(event)
        self._next_id = max(self._next_id, event.id + 1)
        self._turn_id = max(self._turn_id, event.turn_id)
        self._take_in(event)

    def _take_in(self, event: Event) -> None:
        """What an event changes, the same for a live one and a replayed one."""
        self.state.apply(event)
        history.apply(self.messages, event)
        if isinstance(event, ev.ApprovalRequested):
            self.approvals.recorded(event.approval_id)
        elif isinstance(event, ev.ApprovalResolved):
            self.approvals.recorded(event.approval_id, Answer(
                event.decision, event.by, event.note, event.hunks, event.covered_by))

    def _settle_restored(self, config: Config) -> None:
        """After replaying a file: close what a crash (even SIGKILL) left open, so views see
        no turn still running and the model gets a valid history; then record where this
        run's settings differ from the file's (a model or a mode chosen on the command line)."""
        closing = closing_events(self._events, self.state.open_approvals.values())
        if closing is not None:
            turn_id, events = closing
            for event in events:
                self.emit(event, turn_id=turn_id)
        if config.mode != "default" and config.mode != self.mode:
            self.set_mode(config.mode)  # asked for explicitly, so it wins over the file
        if config.model and config.model != self.model:
            self.emit(ev.ModelChanged(model=config.model))  # the command line's, as for mode

    def _settle_covered(self, by: AnsweredBy, covered_by: CoveredBy) -> None:
        """After an "always" grant or a mode switch, other waiting approvals it covers are
        allowed too."""
        for pending in self.approvals.pending():
            if self.decide(pending.request).action == "allow":
                self._settle(pending.approval_id,
                             Answer("allow", by, covered_by=covered_by))
