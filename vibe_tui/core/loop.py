"""The agent loop: one asyncio task per turn.

Each step streams one model response, then runs the tool calls it asked for through the
policy and the tools, and feeds the results back, until the model answers without a tool
call. Every failure becomes an event and, where the model can act on it, a tool result.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vibe_tui.core import events as ev
from vibe_tui.core import history
from vibe_tui.core.approvals import Answer, PendingApproval
from vibe_tui.core.model import (
    ModelError,
    ModelResponse,
    describe_arguments,
    response_cost,
    stream_completion,
)
from vibe_tui.tools.base import ToolError, ToolOutput, ToolRequest, schema_of

if TYPE_CHECKING:
    from vibe_tui.core.session import Session

log = logging.getLogger(__name__)

EMPTY_ANSWER_PROMPT = (
    "Your last answer was empty. Continue the task: call a tool, or answer the user in words."
)
REPEAT_HINT = (
    "\n\n[vibe-tui: this exact call already failed with the same arguments. Do not repeat "
    "it: change the arguments or take another approach.]"
)
INTERRUPTED = "interrupted by the user"
MAX_RESULT_CHARS = 100_000
FAILURE_MESSAGES = {
    "auth": "authentication failed for {model}: {error}. Set the provider's API key "
            "(for example OPENAI_API_KEY or ANTHROPIC_API_KEY) or pass --api-key.",
    "not_found": "the model {model} was not found: {error}",
    "context": "the conversation no longer fits {model}'s context window: {error}",
}


@dataclass
class PreparedCall:
    call_id: str
    tool: str
    args: dict[str, Any]
    request: ToolRequest | None = None
    error: str | None = None  # set when the call cannot run; the model reads it
    denied: str | None = None
    approval: PendingApproval | None = None

    @property
    def runs_alongside(self) -> bool:
        """Read-only calls that need no answer may run concurrently."""
        return (self.error is None and self.denied is None and self.approval is None
                and self.request is not None and self.request.kind == "read")


class TurnFailed(Exception):
    def __init__(self, state: str, message: str) -> None:
        super().__init__(message)
        self.state = state
        self.message = message


class AgentLoop:
    def __init__(self, session: Session, turn_id: int) -> None:
        self.session = session
        self.turn_id = turn_id
        self.config = session.config
        self._streamed: list[str] = []
        self._open_calls: dict[str, str] = {}  # call id -> tool, until a result is given
        self._failures: dict[tuple[str, str], int] = {}

    async def run(self, prompt: str) -> None:
        session = self.session
        session.emit(ev.TurnStarted, prompt=prompt)
        session.emit(ev.UserMessage, text=prompt)
        try:
            state, message = await self._steps()
        except asyncio.CancelledError:
            self._close_open_work()
            state, message = "interrupted", INTERRUPTED
        except TurnFailed as failure:
            state, message = failure.state, failure.message
        except Exception as exc:  # a bug in vibe-tui must not lose the session
            log.exception("turn %s crashed", self.turn_id)
            self._close_open_work(reason=f"internal error: {exc}")
            state, message = "failed", f"internal error: {type(exc).__name__}: {exc}"
        if state == "failed" and message:
            session.emit(ev.Error, message=message)
        session.emit(ev.TurnEnded, state=state, message=message)

    # ---- steps ----------------------------------------------------------------------

    async def _steps(self) -> tuple[str, str | None]:
        session = self.session
        steps = 0
        reprompted = False
        while True:
            for text in session.take_steering():
                session.emit(ev.UserMessage, text=text, steering=True)
            if steps >= self.config.max_steps:
                return "limit", (f"stopped after {steps} model calls (max_steps); "
                                 "send a message to continue")
            steps += 1
            response = await self._call_model()
            session.emit(ev.AssistantMessage, text=response.text, tool_calls=response.tool_calls)
            self._streamed = []
            self._record_usage(response)
            if response.tool_calls:
                await self._run_calls(response.tool_calls)
                continue
            if session.has_steering():
                continue
            if response.text.strip():
                return "completed", None
            if reprompted:
                return "failed", "the model gave an empty answer twice"
            reprompted = True
            session.emit(ev.UserMessage, text=EMPTY_ANSWER_PROMPT)

    async def _call_model(self) -> ModelResponse:
        session = self.session
        settings = session.model_settings()
        if not settings.model:
            raise TurnFailed("failed", "no model is configured: pass --model (a LiteLLM "
                             "model string such as openai/gpt-4.1) or set one in the config")
        messages = [{"role": "system", "content": session.system_prompt}]
        messages += history.repaired(session.messages)
        tools = [schema_of(tool) for tool in session.tools.values()]
        tries = max(1, self.config.model_retries)
        for attempt in range(1, tries + 1):
            self._streamed = []
            try:
                return await stream_completion(settings, messages, tools, self._on_text)
            except ModelError as error:
                if not error.retryable or attempt == tries:
                    self._fail_model_call(error, settings.model)
                delay = self._retry_delay(error, attempt)
                session.emit(ev.Error, retrying=True, message=(
                    f"{error.message} (retrying in {delay:.1f} s, try {attempt + 1} of {tries})"))
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    def _retry_delay(self, error: ModelError, attempt: int) -> float:
        if error.retry_after is not None:
            return min(error.retry_after, 60.0)
        return min(self.config.model_retry_base_s * 2 ** (attempt - 1), 60.0)

    def _fail_model_call(self, error: ModelError, model: str) -> None:
        if error.kind == "stream_cut" and error.partial is not None:
            # Keep what arrived: the user saw it, and the history stays valid.
            self.session.emit(ev.AssistantMessage, text=error.partial.text, partial=True)
            self._streamed = []
        template = FAILURE_MESSAGES.get(error.kind, "the model call failed: {error}")
        raise TurnFailed("failed", template.format(model=model, error=error.message))

    def _on_text(self, text: str) -> None:
        self._streamed.append(text)
        self.session.emit(ev.TextDelta, text=text)

    def _record_usage(self, response: ModelResponse) -> None:
        session = self.session
        if not (response.prompt_tokens or response.completion_tokens):
            return
        cost = response_cost(session.model, response.prompt_tokens, response.completion_tokens)
        session.session_cost += cost or 0.0
        session.session_tokens += response.prompt_tokens + response.completion_tokens
        session.emit(ev.Usage, model=session.model, prompt_tokens=response.prompt_tokens,
                     completion_tokens=response.completion_tokens, cost=cost,
                     session_cost=session.session_cost, session_tokens=session.session_tokens)

    # ---- tool calls -----------------------------------------------------------------

    async def _run_calls(self, tool_calls: list[dict[str, Any]]) -> None:
        prepared = [await self._prepare(call) for call in tool_calls]
        index = 0
        while index < len(prepared):
            batch = [prepared[index]]
            while (batch[-1].runs_alongside and index + len(batch) < len(prepared)
                   and prepared[index + len(batch)].runs_alongside):
                batch.append(prepared[index + len(batch)])
            await asyncio.gather(*(self._finish(call) for call in batch))
            index += len(batch)
        repeated = [key for key, count in self._failures.items() if count >= 3]
        if repeated:
            tool, _ = repeated[0]
            raise TurnFailed("failed", f"stopped: the model repeated the same failing "
                             f"{tool} call three times")

    async def _prepare(self, call: dict[str, Any]) -> PreparedCall:
        session = self.session
        function = call.get("function", {})
        name = function.get("name", "")
        args, problem = describe_arguments(function.get("arguments") or "")
        prepared = PreparedCall(call["id"], name, args or {})
        self._open_calls[prepared.call_id] = name
        shown_args = args if args is not None else {"_raw": function.get("arguments", "")}
        session.emit(ev.ToolCall, call_id=prepared.call_id, tool=name, args=shown_args,
                     summary=summarise(name, shown_args))
        tool = session.tools.get(name)
        if problem:
            prepared.error = f"{problem}. Arguments received: {function.get('arguments', '')[:300]}"
        elif tool is None:
            prepared.error = (f"unknown tool '{name}'. Available tools: "
                              f"{', '.join(session.tools)}")
        else:
            await self._check(prepared, tool)
        return prepared

    async def _check(self, prepared: PreparedCall, tool) -> None:
        """Precheck, policy, and for an ask the preview and the open approval."""
        session = self.session
        try:
            prepared.request = tool.precheck(prepared.args, session.tool_context)
        except ToolError as error:
            prepared.error = str(error)
            return
        decision = session.decide(prepared.request)
        if decision.action == "deny":
            prepared.denied = f"denied: {decision.reason}"
            return
        if decision.action == "allow":
            return
        try:
            diff = await tool.preview(prepared.args, session.tool_context)
        except ToolError as error:
            prepared.error = str(error)  # it would fail anyway: no need to ask
            return
        approval = session.approvals.open(prepared.call_id, prepared.request, decision.grant)
        session.emit(ev.ApprovalRequested, approval_id=approval.approval_id,
                     call_id=prepared.call_id, tool=prepared.tool, args=prepared.args,
                     reason=decision.reason, grant=decision.grant, diff=diff)
        if session.interactive:
            prepared.approval = approval
            return
        session.answer(approval.approval_id, "deny", by="headless")
        prepared.denied = (f"denied: this call needs approval ({decision.reason}) and nobody "
                           "can answer in headless mode; it did not run. The user can allow it "
                           f"with --allow '{decision.grant or prepared.tool}'.")

    async def _finish(self, prepared: PreparedCall) -> None:
        if prepared.error is not None:
            self._give_result(prepared, ToolOutput(text=prepared.error, ok=False), "error")
            return
        if prepared.denied is not None:
            self._give_result(prepared, ToolOutput(text=prepared.denied, ok=False), "denied")
            return
        if prepared.approval is not None:
            answer: Answer = await prepared.approval.future
            if answer.decision == "deny":
                text = "denied by the user; it did not run. Do not retry it as it is."
                if answer.note:
                    text = f"denied by the user, who said: {answer.note}"
                self._give_result(prepared, ToolOutput(text=text, ok=False), "denied")
                return
        await self._execute(prepared)

    async def _execute(self, prepared: PreparedCall) -> None:
        tool = self.session.tools[prepared.tool]
        started = time.monotonic()
        try:
            output = await tool.run(prepared.args, self.session.tool_context)
        except ToolError as error:
            output = ToolOutput(text=str(error), ok=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug is reported to the model, not fatal
            log.exception("tool %s crashed", prepared.tool)
            output = ToolOutput(text=f"the tool failed unexpectedly: {type(exc).__name__}: {exc}",
                                ok=False)
        status = "ok" if output.ok else "error"
        self._give_result(prepared, output, status, time.monotonic() - started)

    def _give_result(self, prepared: PreparedCall, output: ToolOutput, status: str,
                     duration: float = 0.0) -> None:
        text = output.text
        if len(text) > MAX_RESULT_CHARS:
            cut = len(text) - MAX_RESULT_CHARS
            text = text[:MAX_RESULT_CHARS] + f"\n[... {cut} characters cut ...]"
        if status in ("error", "denied"):
            key = (prepared.tool, json.dumps(prepared.args, sort_keys=True, default=str))
            self._failures[key] = self._failures.get(key, 0) + 1
            if self._failures[key] >= 2:
                text += REPEAT_HINT
        self._open_calls.pop(prepared.call_id, None)
        self.session.emit(ev.ToolResult, call_id=prepared.call_id, tool=prepared.tool,
                          output=text, status=status, duration_s=round(duration, 4),
                          diff=output.diff, exit_code=output.exit_code)

    # ---- interrupt ------------------------------------------------------------------

    def _close_open_work(self, reason: str = INTERRUPTED) -> None:
        """Leave a valid record: partial text kept, approvals denied, every call answered."""
        session = self.session
        if self._streamed:
            session.emit(ev.AssistantMessage, text="".join(self._streamed), partial=True)
            self._streamed = []
        for pending in session.approvals.pending():
            session.answer(pending.approval_id, "deny", by="interrupt")
        for call_id, tool in list(self._open_calls.items()):
            session.emit(ev.ToolResult, call_id=call_id, tool=tool, output=reason,
                         status="interrupted")
        self._open_calls.clear()


def summarise(tool: str, args: dict[str, Any]) -> str:
    """One line for the timeline: the argument that says most about the call."""
    for key in ("command", "path", "pattern", "query", "session_id"):
        value = args.get(key)
        if isinstance(value, str) and value:
            line = value.splitlines()[0] if value.splitlines() else value
            extra = " …" if "\n" in value.strip() else ""
            if key == "pattern" and args.get("path"):
                line = f"{line} in {args['path']}"
            return (line[:117] + "…" if len(line) > 118 else line) + extra
    text = json.dumps(args, ensure_ascii=False, default=str)
    return text[:117] + "…" if len(text) > 118 else text
