"""The agent loop: one asyncio task per turn.

Each step makes room in the context if it is filling up, streams one model response, then
runs the tool calls it asked for through the policy and the tools, and feeds the results
back, until the model answers without a tool call. Every failure becomes an event and,
where the model can act on it, a tool result.

The same loop runs a read-only sub-agent for the ``task`` tool: it then works on a
``Scope`` of its own (empty history, read tools, at most 12 model calls) and tags every
event it emits with the parent call's id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from vibe_tui.core import compaction
from vibe_tui.core import context as ctx
from vibe_tui.core import events as ev
from vibe_tui.core import history
from vibe_tui.core import model as model_adapter
from vibe_tui.core.approvals import Answer, PendingApproval
from vibe_tui.core.host import LoopHost
from vibe_tui.core.model import (
    ModelError,
    ModelResponse,
    describe_arguments,
    response_cost,
    stream_completion,
)
from vibe_tui.core.prompts import LAST_CALL_NOTE, TURN_LIMIT_NOTE
from vibe_tui.core.result_kind import json_safe, result_kind
from vibe_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolRequest, schema_of
from vibe_tui.tools.task import current_runner

log = logging.getLogger(__name__)
E = TypeVar("E", bound=ev.Event)

EMPTY_ANSWER_PROMPT = (
    "Your last answer was empty. Continue the task: call a tool, or answer the user in words."
)
CUT_OFF_PROMPT = (
    "[vibe-tui: your answer was cut off at the output limit. Do not repeat it. Continue the "
    "task with one tool call, or give a short final answer; write a big file in parts.]"
)
REPEAT_HINT = (
    "\n\n[vibe-tui: this exact call already failed with the same arguments. Do not repeat "
    "it: change the arguments or take another approach.]"
)
RESAMPLE_TEMPERATURE = 0.7
SAME_CALL_HINT = (
    "\n\n[vibe-tui: you made this exact call before. Unless something changed since, "
    "the result is the same: use it and take the next step.]"
)
STUCK_HINT = (
    "\n\n[vibe-tui: you have made this exact call three times and nothing changed. No more "
    "tools for now: tell the user what you found and what you would do next.]"
)
# Streamed text is sent to the views at most this often. Each send repaints the screen;
# at 25 a second the keys typed meanwhile waited behind those repaints (p50 61 ms against
# 13 ms at 10 a second, bench/peers.py, 2026-12-03).
DELTA_INTERVAL_S = 0.1
INTERRUPTED = "interrupted by the user"
# A cheap first cut before any counting; the real cap is a share of the context window.
MAX_RESULT_CHARS = 100_000
FAILURE_MESSAGES = {
    "auth": "authentication failed for {model}: {error}. Set the provider's API key "
            "(for example OPENAI_API_KEY or ANTHROPIC_API_KEY) or pass --api-key.",
    "not_found": "the model {model} was not found: {error}",
    "context": "the conversation no longer fits {model}'s context window: {error}",
}
UNFINISHED_REPORT = "[the helper used all its {calls} model calls before finishing its report]"


# The automatic repo map must not hold up the first answer for long; the tool is there.
REPO_MAP_TIMEOUT_S = 20.0
REPO_MAP_INTRO = ("[vibe-tui: the files of this repository and a map of its code (ranked "
                  "definitions, with line numbers), to help you find your way; use these "
                  "paths, and repo_map for more.]")


@dataclass
class Scope:
    """What one agent works with: the session's own conversation, or a sub-agent's."""

    messages: list[history.Message]
    tools: dict[str, Tool]
    tool_context: ToolContext
    system_prompt: str
    context: ctx.ContextTracker
    max_steps: int
    parent_call_id: str | None = None  # set for a sub-agent: the task call it works for

    @property
    def nested(self) -> bool:
        return self.parent_call_id is not None


@dataclass
class PreparedCall:
    call_id: str
    tool: str
    args: dict[str, Any]
    request: ToolRequest | None = None
    error: str | None = None  # set when the call cannot run; the model reads it
    denied: str | None = None
    approval: PendingApproval | None = None
    decision: str | None = None  # the policy's: allow | ask | deny (for the call log)
    reason: str | None = None
    answered_by: str | None = None
    diff: str | None = None  # the change the user was shown, for an edit that asked
    hunks: list[int] | None = None  # the hunks of that diff the user kept (None: all)

    @property
    def runs_alongside(self) -> bool:
        """Read-only calls that need no answer may run concurrently."""
        return (self.error is None and self.denied is None and self.approval is None
                and self.request is not None and self.request.kind == "read")


class TurnFailed(Exception):
    def __init__(self, state: ev.TurnState, message: str) -> None:
        super().__init__(message)
        self.state = state
        self.message = message


class AgentLoop:
    def __init__(self, host: LoopHost, turn_id: int, scope: Scope) -> None:
        self.host = host
        self.turn_id = turn_id
        self.config = host.config
        self.scope = scope
        # Built once per turn, in a fixed order: the request prefix stays byte-identical.
        self.schemas = [schema_of(tool) for tool in self.scope.tools.values()]
        self.final_text = ""
        self._raw_prompt = 0  # our count of the last request sent
        self._window: ctx.Window | None = None
        self._streamed: list[str] = []
        self._unsent: list[str] = []  # streamed text not yet sent as a TextDelta
        self._send_timer: asyncio.TimerHandle | None = None
        self._last_sent = float("-inf")
        self._open_calls: dict[str, str] = {}  # call id -> tool, until a result is given
        self._failures: dict[tuple[str, str], int] = {}
        self._calls_made: dict[tuple[str, str], int] = {}  # since the last file change
        self._repeated = False  # the last results answered a repeated call
        self._stuck = False  # the last results answered a call made three times

    @property
    def nested(self) -> bool:
        return self.scope.nested

    def emit(self, event: E) -> E:
        """Emit into the session's record; a sub-agent's events also build its history."""
        event = self.host.emit(replace(event, parent_call_id=self.scope.parent_call_id))
        if self.nested:
            history.apply(self.scope.messages, event, self.scope.parent_call_id)
        return event

    async def run(self, prompt: str) -> None:
        host = self.host
        host.emit(ev.TurnStarted(prompt=prompt))
        try:
            context = await self._first_turn_context(prompt)
        except asyncio.CancelledError:
            context = None  # interrupted while mapping: the prompt is still recorded
        host.emit(ev.UserMessage(text=prompt, context=context))
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
            host.emit(ev.Error(message=message))
        host.emit(ev.TurnEnded(state=state, message=message))

    async def _first_turn_context(self, prompt: str) -> str | None:
        """With ``repo_map_auto`` (resolved by ``Config.repo_map_first``), the first
        request of a session carries a repo map focused on the prompt; a map that fails or
        takes too long is left out."""
        if not self.config.repo_map_first or self.scope.messages:
            return None
        from vibe_tui.tools.repo_map import first_request_overview

        window = await self.scope.context.window(self.host.model)
        # A small window keeps most of its room for the work itself.
        budget = min(self.config.repo_map_tokens, window.tokens // 16)
        try:
            text = await asyncio.wait_for(asyncio.to_thread(
                first_request_overview, self.host.workspace, budget, prompt),
                REPO_MAP_TIMEOUT_S)
        except (asyncio.TimeoutError, OSError, ValueError) as exc:
            log.warning("no repo map for the first request: %r", exc)
            return None
        return f"{REPO_MAP_INTRO}\n{text}" if text.strip() else None

    async def run_nested(self, prompt: str) -> str:
        """Run as a sub-agent on ``prompt``; its final report. Raises ToolError on failure."""
        self.emit(ev.UserMessage(text=prompt))
        try:
            state, message = await self._steps()
        except asyncio.CancelledError:
            self._close_open_work()
            raise
        except TurnFailed as failure:
            raise ToolError(f"the helper failed: {failure.message}") from None
        except Exception as exc:
            self._close_open_work(reason=f"internal error: {exc}")
            raise
        if state == "failed":
            raise ToolError(f"the helper failed: {message}")
        report = self.final_text.strip()
        if state == "limit":
            note = UNFINISHED_REPORT.format(calls=self.scope.max_steps)
            report = f"{note}\n{report}" if report else note
        return report

    # ---- steps ----------------------------------------------------------------------

    async def _steps(self) -> tuple[ev.TurnState, str | None]:
        host = self.host
        steps = 0
        reprompted = False
        while True:
            if not self.nested:
                for text in host.take_steering():
                    self.emit(ev.UserMessage(text=text, steering=True))
            if steps >= self.scope.max_steps:
                return "limit", self._limit_message(steps)
            steps += 1
            # The last call asks for words, not tools: a turn that stops mid-search leaves
            # the user nothing (the local model found the answer at its first call and
            # was still searching when the limit came).
            last_call = steps == self.scope.max_steps
            if last_call:
                self.emit(ev.UserMessage(text=LAST_CALL_NOTE if self.nested else TURN_LIMIT_NOTE))
            response = await self._call_model(words_only=last_call)
            self.emit(ev.AssistantMessage(text=response.text, tool_calls=response.tool_calls))
            self.final_text = response.text
            self._streamed = []
            self._record_usage(response, self.host.model)
            if not self.nested:
                self._report_context(response)
            if response.tool_calls:
                await self._run_calls(response.tool_calls)
                continue
            if last_call and (not self.nested or not response.text.strip()):
                return "limit", self._limit_message(steps)
            if not self.nested and host.has_steering():
                continue
            cut_off = response.finish_reason == "length"
            if response.text.strip() and not cut_off:
                return "completed", None
            if reprompted:
                return "failed", _no_answer_reason(response, cut_off)
            reprompted = True
            self.emit(ev.UserMessage(text=CUT_OFF_PROMPT if cut_off else EMPTY_ANSWER_PROMPT))

    def _limit_message(self, steps: int) -> str:
        return f"stopped after {steps} model calls (max_steps); send a message to continue"

    def _refresh_schemas(self) -> None:
        """Tools that joined or left since the last call (an MCP server ready mid-turn).
        Unchanged tools keep the same list, so the request prefix stays byte-identical."""
        if [schema["function"]["name"] for schema in self.schemas] != list(self.scope.tools):
            self.schemas = [schema_of(tool) for tool in self.scope.tools.values()]

    async def _call_model(self, words_only: bool = False) -> ModelResponse:
        host = self.host
        settings = host.model_settings()
        if not settings.model:
            raise TurnFailed("failed", "no model is configured: pass --model (a LiteLLM "
                             "model string such as openai/gpt-4.1) or set one in the config")
        if self._repeated and settings.temperature == 0.0:
            # Greedy decoding gives the same call again for nearly the same context; the
            # hint alone rarely changes that (the local model grepped one missing path
            # three times). One sampled answer breaks the loop.
            settings = replace(settings, temperature=RESAMPLE_TEMPERATURE)
        if words_only or self._stuck:
            # The tools stay in the request (the provider's prompt cache keeps its prefix)
            # but the answer must be words: the local model ignored a note alone and kept
            # calling tools on its last call.
            settings = replace(settings, tool_choice="none")
        self._repeated = self._stuck = False
        self._refresh_schemas()
        raw = await self._fit_context(settings.model)
        messages = self._request_messages()
        tries = max(1, self.config.model_retries)
        overflowed = False
        for attempt in range(1, tries + 1):
            self._streamed = []
            started = time.monotonic()
            try:
                try:
                    response = await stream_completion(settings, messages, self.schemas,
                                                       self._on_text)
                finally:
                    self._send_text()  # every delta is out before the answer or an error
            except ModelError as error:
                self._log_model_call(settings.model, started, None, raw, error.message)
                if error.kind == "context" and not overflowed and await self._overflowed(raw):
                    # Our estimate was short of the provider's count: compacted, try again.
                    overflowed = True
                    raw = await self._fit_context(settings.model)
                    messages = self._request_messages()
                    continue
                if not error.retryable or attempt == tries:
                    self._fail_model_call(error, settings.model)
                delay = self._retry_delay(error, attempt)
                self.emit(ev.Error(retrying=True, message=(
                    f"{error.message} (retrying in {delay:.1f} s, try {attempt + 1} of {tries})")))
                await asyncio.sleep(delay)
                continue
            self._log_model_call(settings.model, started, response, raw)
            self.scope.context.calibrate(raw, response.prompt_tokens)
            self._raw_prompt = raw
            return response
        raise AssertionError("unreachable")

    def _request_messages(self) -> list[history.Message]:
        messages = [{"role": "system", "content": self.scope.system_prompt}]
        return messages + history.repaired(self.scope.messages)

    async def _overflowed(self, raw: int) -> bool:
        """The provider refused the request as too long: take its word for the request
        being at least the window, and compact. False when nothing could be freed."""
        if self._window is None:
            return False
        self.scope.context.overflowed(raw, self._window.tokens)
        return await self.compact("auto") is not None

    def _retry_delay(self, error: ModelError, attempt: int) -> float:
        if error.retry_after is not None:
            return min(error.retry_after, 60.0)
        return min(self.config.model_retry_base_s * 2 ** (attempt - 1), 60.0)

    def _fail_model_call(self, error: ModelError, model: str) -> None:
        if error.kind == "stream_cut" and error.partial is not None:
            # Keep what arrived: the user saw it, and the history stays valid.
            self.emit(ev.AssistantMessage(text=error.partial.text, partial=True))
            self._streamed = []
        template = FAILURE_MESSAGES.get(error.kind, "the model call failed: {error}")
        raise TurnFailed("failed", template.format(model=model, error=error.message))

    def _on_text(self, text: str) -> None:
        """Streamed text becomes TextDelta events at most DELTA_INTERVAL_S apart: each
        event is a JSONL line and a message to every view, and a fast model sends a few
        characters per chunk. The first text of a pause goes out at once."""
        self._streamed.append(text)
        self._unsent.append(text)
        if self._send_timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_sent + DELTA_INTERVAL_S - loop.time()
        if wait <= 0:
            self._send_text()
        else:
            self._send_timer = loop.call_later(wait, self._send_text)

    def _send_text(self) -> None:
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None
        if self._unsent:
            self._last_sent = asyncio.get_running_loop().time()
            self.emit(ev.TextDelta(text="".join(self._unsent)))
            self._unsent = []

    def _record_usage(self, response: ModelResponse, model: str) -> None:
        host = self.host
        if response.prompt_tokens or response.completion_tokens:
            cost = response_cost(model, response.prompt_tokens, response.completion_tokens)
            tokens = response.prompt_tokens + response.completion_tokens
            # The totals ride on the event; the host's state takes them from there.
            self.emit(ev.Usage(model=model, prompt_tokens=response.prompt_tokens,
                               completion_tokens=response.completion_tokens, cost=cost,
                               session_cost=host.state.cost + (cost or 0.0),
                               session_tokens=host.state.tokens + tokens))

    def _log_model_call(self, model: str, started: float, response: ModelResponse | None,
                        estimate_raw: int | None, error: str | None = None,
                        purpose: str | None = None) -> None:
        response = response or ModelResponse()
        cost = None
        if response.prompt_tokens or response.completion_tokens:
            cost = response_cost(model, response.prompt_tokens, response.completion_tokens)
        estimate = None if estimate_raw is None else self.scope.context.estimate(estimate_raw)
        self.host.call_log.model_call(
            turn_id=self.turn_id, model=model,
            purpose=purpose or ("subagent" if self.nested else "turn"),
            latency_s=time.monotonic() - started, first_token_s=response.first_token_s,
            prompt_tokens=response.prompt_tokens, completion_tokens=response.completion_tokens,
            cached_tokens=response.cached_tokens, cost=cost, estimate=estimate, error=error,
            parent_call_id=self.scope.parent_call_id)

    # ---- context --------------------------------------------------------------------

    async def _fit_context(self, model: str) -> int:
        """Compact when the request would pass the threshold; the raw token count of what
        will be sent."""
        scope = self.scope
        tracker = scope.context
        self._window = await tracker.window(model)
        raw = await tracker.measure(model, scope.system_prompt, self.schemas, scope.messages)
        asked = None if self.nested else self.host.take_compact_request()
        if asked is not None:
            compacted = await self.compact("manual", asked[0])
        elif tracker.estimate(raw) > tracker.budget(self._window).threshold:
            compacted = await self.compact("auto")
        else:
            return raw
        if compacted is None:
            return raw
        return await tracker.measure(model, scope.system_prompt, self.schemas, scope.messages)

    async def compact(self, reason: str, focus: str | None = None) -> ev.Compacted | None:
        """Free room in this scope's conversation; the Compacted event, or None when there
        was nothing to do."""
        scope = self.scope
        model = self.host.model
        window = self._window = await scope.context.window(model)
        plan = await compaction.compact(scope.context, model=model, window=window,
                                 system=scope.system_prompt, tools=self.schemas,
                                 messages=scope.messages, summarise=self._summarise,
                                 reason=reason, focus=focus)
        if plan is None:
            return None
        event = self.emit(ev.Compacted(reason=plan.reason, steps=plan.steps,
                          tokens_before=plan.tokens_before, tokens_after=plan.tokens_after,
                          window=window.tokens, stubs=plan.stubs, cuts=plan.cuts,
                          summarised=plan.summarised, summary=plan.summary, focus=plan.focus))
        scope.context.forget_prefix()  # applying the event rewrote the history in place
        if not self.nested:
            self._emit_context_usage(plan.tokens_after, window)
        return event  # type: ignore[return-value]

    async def _summarise(self, request: list[history.Message]) -> str | None:
        """One model call that writes a summary (not streamed to the views)."""
        window = self._window or await self.scope.context.window(self.host.model)
        settings = self.host.compaction_settings(
            self.scope.context.budget(window).summary_tokens)
        started = time.monotonic()
        try:
            # Not the turn's stream_completion name: a summary is not a step of the turn.
            response = await model_adapter.stream_completion(settings, request, [], _ignore)
        except ModelError as error:
            self._log_model_call(settings.model, started, None, None, error.message,
                                 purpose="compaction")
            self.emit(ev.Notice(text=f"the summary could not be written ({error.message}); "
                                      "a plain record of the earlier conversation replaces it"))
            return None
        self._log_model_call(settings.model, started, response, None, purpose="compaction")
        self._record_usage(response, settings.model)
        return response.text

    def _report_context(self, response: ModelResponse) -> None:
        """The request just answered plus the answer: what the next call starts from."""
        if self._window is None:
            return
        prompt = response.prompt_tokens or self.scope.context.estimate(self._raw_prompt)
        completion = response.completion_tokens or len(response.text) // 4
        self._emit_context_usage(prompt + completion, self._window)

    def _emit_context_usage(self, tokens: int, window: ctx.Window) -> None:
        self.emit(ev.ContextUsage(model=self.host.model, tokens=tokens,
                  window=window.tokens, percent=round(100 * tokens / max(1, window.tokens)),
                  window_source=window.source, note=window.note))

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
        function = call.get("function", {})
        name = function.get("name", "")
        args, problem = describe_arguments(function.get("arguments") or "")
        prepared = PreparedCall(call["id"], name, args or {})
        self._open_calls[prepared.call_id] = name
        shown_args = args if args is not None else {"_raw": function.get("arguments", "")}
        self.emit(ev.ToolCall(call_id=prepared.call_id, tool=name, args=shown_args,
                  summary=summarise(name, shown_args)))
        tool = self.scope.tools.get(name)
        if problem:
            prepared.error = f"{problem}. Arguments received: {function.get('arguments', '')[:300]}"
        elif tool is None:
            prepared.error = (f"unknown tool '{name}'. Available tools: "
                              f"{', '.join(self.scope.tools)}")
        else:
            await self._check(prepared, tool)
        return prepared

    async def _check(self, prepared: PreparedCall, tool) -> None:
        """Precheck, policy, and for an ask the preview and the open approval."""
        host = self.host
        tool_context = self.scope.tool_context
        try:
            prepared.request = tool.precheck(prepared.args, tool_context)
        except ToolError as error:
            prepared.error = str(error)
            return
        decision = host.decide(prepared.request)
        prepared.decision, prepared.reason = decision.action, decision.reason
        if decision.action == "deny":
            prepared.denied = f"denied: {decision.reason}"
            prepared.answered_by = "policy"
            return
        if decision.action == "allow":
            prepared.answered_by = "policy"
            return
        try:
            diff = await tool.preview(prepared.args, tool_context)
        except ToolError as error:
            prepared.error = str(error)  # it would fail anyway: no need to ask
            return
        prepared.diff = diff
        approval = host.ask(prepared.call_id, prepared.request, decision.grant)
        self.emit(ev.ApprovalRequested(approval_id=approval.approval_id,
                  call_id=prepared.call_id, tool=prepared.tool, args=prepared.args,
                  reason=decision.reason, grant=decision.grant, diff=diff))
        if host.interactive:
            prepared.approval = approval
            return
        host.answer(approval.approval_id, "deny", by="headless")
        prepared.answered_by = "headless"
        prepared.denied = (f"denied: this call needs approval ({decision.reason}) and nobody "
                           "can answer in headless mode; it did not run. The user can allow it "
                           f"with --allow '{decision.grant or prepared.tool}'.")

    async def _finish(self, prepared: PreparedCall) -> None:
        if prepared.error is not None:
            await self._give_result(prepared, ToolOutput(text=prepared.error, ok=False), "error")
            return
        if prepared.denied is not None:
            await self._give_result(prepared, ToolOutput(text=prepared.denied, ok=False),
                                    "denied")
            return
        if prepared.approval is not None:
            answer: Answer = await prepared.approval.future
            prepared.answered_by = answer.by
            if answer.decision == "deny":
                text = "denied by the user; it did not run. Do not retry it as it is."
                if answer.note:
                    text = f"denied by the user, who said: {answer.note}"
                await self._give_result(prepared, ToolOutput(text=text, ok=False), "denied")
                return
            if answer.hunks is not None and not answer.hunks:
                text = ("the user rejected every hunk of this change; nothing was written. "
                        "Do not retry it as it is.")
                await self._give_result(prepared, ToolOutput(text=text, ok=False), "denied")
                return
            prepared.hunks = answer.hunks
        await self._execute(prepared)

    async def _execute(self, prepared: PreparedCall) -> None:
        tool = self.scope.tools[prepared.tool]
        started = time.monotonic()
        runner = current_runner.set(self._subagent_runner(prepared.call_id))
        try:
            output = await self._run_tool(tool, prepared)
        except ToolError as error:
            output = ToolOutput(text=str(error), ok=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug is reported to the model, not fatal
            log.exception("tool %s crashed", prepared.tool)
            output = ToolOutput(text=f"the tool failed unexpectedly: {type(exc).__name__}: {exc}",
                                ok=False)
        finally:
            current_runner.reset(runner)
        status: ev.ResultStatus = "ok" if output.ok else "error"
        await self._give_result(prepared, output, status, time.monotonic() - started)

    async def _run_tool(self, tool: Tool, prepared: PreparedCall) -> ToolOutput:
        """Run the tool; an edit's files are recorded before and after (the Changes
        screen's diffs and reverts), and only the hunks the user kept are applied."""
        tool_context = self.scope.tool_context
        paths = prepared.request.paths if prepared.request and prepared.request.kind == "edit" else ()
        changes = self.host.changes
        if paths:
            await asyncio.to_thread(changes.remember, paths)
            await asyncio.to_thread(self.host.checkpoints.keep, self.turn_id, paths)
        try:
            run_hunks = getattr(tool, "run_hunks", None)
            if prepared.hunks is not None and run_hunks is not None:
                return await run_hunks(prepared.args, tool_context, prepared.hunks, prepared.diff)
            return await tool.run(prepared.args, tool_context)
        finally:
            if paths:
                await asyncio.to_thread(changes.touched, paths)

    def _subagent_runner(self, call_id: str):
        async def run(prompt: str) -> str:
            return await self.host.run_subagent(self.turn_id, call_id, prompt)

        return None if self.nested else run  # a sub-agent starts no sub-agents

    @staticmethod
    def _reads_only(prepared: PreparedCall) -> bool:
        return prepared.request is not None and prepared.request.kind == "read"

    def _note_repeats(self, prepared: PreparedCall, status: ev.ResultStatus,
                      output: ToolOutput) -> str:
        """A hint for a call made before with the same arguments. Small models loop on
        one call (a sub-agent ran the same repo_map eleven times); a change to a file
        makes every earlier call worth trying again."""
        key = (prepared.tool, json.dumps(prepared.args, sort_keys=True, default=str))
        if status == "ok" and output.diff:
            self._failures.clear()
            self._calls_made.clear()
        self._calls_made[key] = self._calls_made.get(key, 0) + 1
        if status in ("error", "denied"):
            self._failures[key] = self._failures.get(key, 0) + 1
            if self._failures[key] >= 2:
                self._repeated = True
                return REPEAT_HINT
        elif self._calls_made[key] >= 3 and self._reads_only(prepared):
            # A command may see a change the record does not (a file written by bash);
            # a read that comes back the same three times will not change.
            self._stuck = True
            return STUCK_HINT
        elif self._calls_made[key] >= 2:
            self._repeated = True
            return SAME_CALL_HINT
        return ""

    async def _give_result(self, prepared: PreparedCall, output: ToolOutput,
                           status: ev.ResultStatus,
                           duration: float = 0.0) -> None:
        text = output.text
        if len(text) > MAX_RESULT_CHARS:
            cut = len(text) - MAX_RESULT_CHARS
            text = text[:MAX_RESULT_CHARS] + f"\n[... {cut} characters cut ...]"
        if self._window is not None:
            text = await ctx.capped_output(self.scope.context, self.host.model,
                                           self._window, text)
        text += self._note_repeats(prepared, status, output)
        self._open_calls.pop(prepared.call_id, None)
        self.emit(ev.ToolResult(call_id=prepared.call_id, tool=prepared.tool,
                  output=text, status=status, duration_s=round(duration, 4),
                  diff=output.diff, exit_code=output.exit_code,
                  kind=result_kind(prepared.tool, self.scope.tools.get(prepared.tool)),
                  meta=json_safe(output.meta)))
        self.host.call_log.tool_call(
            turn_id=self.turn_id, call_id=prepared.call_id, tool=prepared.tool,
            args=prepared.args, decision=prepared.decision, reason=prepared.reason,
            answered_by=prepared.answered_by, duration_s=duration, status=status,
            exit_code=output.exit_code, output_chars=len(text),
            parent_call_id=self.scope.parent_call_id)

    # ---- interrupt ------------------------------------------------------------------

    def _close_open_work(self, reason: str = INTERRUPTED) -> None:
        """Leave a valid record: partial text kept, approvals denied, every call answered."""
        host = self.host
        if self._streamed:
            self.emit(ev.AssistantMessage(text="".join(self._streamed), partial=True))
            self._streamed = []
        for pending in host.pending_approvals():
            if not self.nested or pending.call_id in self._open_calls:
                host.answer(pending.approval_id, "deny", by="interrupt")
        for call_id, tool in list(self._open_calls.items()):
            self.emit(ev.ToolResult(call_id=call_id, tool=tool, output=reason,
                      status="interrupted",
                      kind=result_kind(tool, self.scope.tools.get(tool))))
            host.call_log.tool_call(
                turn_id=self.turn_id, call_id=call_id, tool=tool, args={}, decision=None,
                reason=None, answered_by=None, duration_s=0.0, status="interrupted",
                exit_code=None, output_chars=len(reason),
                parent_call_id=self.scope.parent_call_id)
        self._open_calls.clear()


def _no_answer_reason(response: ModelResponse, cut_off: bool) -> str:
    if cut_off:
        return "the model's answer was cut off at its output limit twice"
    if response.dropped_calls:
        return ("the model kept calling tools when asked to answer in words (it had made "
                "the same call three times)")
    return "the model gave an empty answer twice"


def _ignore(_: str) -> None:
    pass


def summarise(tool: str, args: dict[str, Any]) -> str:
    """One line for the timeline: the argument that says most about the call."""
    return history.describe_call(tool, args)
