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
import logging
import time
from dataclasses import replace
from typing import TypeVar

from vibe_tui.core import compaction, history
from vibe_tui.core import context as ctx
from vibe_tui.core import events as ev
from vibe_tui.core import model as model_adapter
from vibe_tui.core.attachments import Attached, Attachments
from vibe_tui.core.deltas import DeltaThrottle, ProgressThrottle
from vibe_tui.core.host import LoopHost
from vibe_tui.core.model import (
    ModelError,
    ModelResponse,
    response_cost,
    stream_completion,
)
from vibe_tui.core.hooks import Hooks
from vibe_tui.core.prompts import LAST_CALL_NOTE, TURN_LIMIT_NOTE, mode_note
from vibe_tui.core.repeats import RepeatGuard
from vibe_tui.core.result_kind import result_kind
from vibe_tui.core.scope import Scope
from vibe_tui.core.settings import turn_settings
from vibe_tui.core.tool_calls import ToolCallPipeline
from vibe_tui.tools.base import (
    ToolError,
    schema_of,
)

log = logging.getLogger(__name__)
E = TypeVar("E", bound=ev.Event)

EMPTY_ANSWER_PROMPT = (
    "Your last answer was empty. Continue the task: call a tool, or answer the user in words."
)
CUT_OFF_PROMPT = (
    "[vibe-tui: your answer was cut off at the output limit. Do not repeat it. Continue the "
    "task with one tool call, or give a short final answer; write a big file in parts.]"
)
RESAMPLE_TEMPERATURE = 0.7
INTERRUPTED = "interrupted by the user"
LOADING_CLIENT = "loading the model client (once, a few seconds), then sent: {prompt}"
FAILURE_MESSAGES = {  # auth and connection failures come worded whole (``summary``)
    "not_found": "the model {model} was not found: {error}",
    "context": "the conversation no longer fits {model}'s context window: {error}",
}
STOP_HOOK_NOTE = "[vibe-tui: a Stop hook says the turn is not done yet: {reason}]"
UNFINISHED_REPORT = "[the helper used all its {calls} model calls before finishing its report]"


# The automatic repo map must not hold up the first answer for long; the tool is there.
REPO_MAP_TIMEOUT_S = 20.0
REPO_MAP_INTRO = ("[vibe-tui: the files of this repository and a map of its code (ranked "
                  "definitions, with line numbers), to help you find your way; use these "
                  "paths, and repo_map for more.]")


class TurnFailed(Exception):
    def __init__(self, state: ev.TurnState, message: str) -> None:
        super().__init__(message)
        self.state = state
        self.message = message


class AgentLoop(ToolCallPipeline):
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
        self._deltas = DeltaThrottle(lambda text: self.emit(ev.TextDelta(text=text)))
        self._progress = ProgressThrottle(
            lambda done, total: self.emit(ev.PromptProgress(done=done, total=total)))
        self._open_calls: dict[str, str] = {}  # call id -> tool, until a result is given
        self._repeats = RepeatGuard()
        self.hooks = Hooks(self.config.hooks, host.tool_context, self.emit, {
            "session_id": host.id, "cwd": str(host.workspace),
            "permission_mode": host.state.mode})

    @property
    def nested(self) -> bool:
        return self.scope.nested

    def emit(self, event: E) -> E:
        """Emit into the session's record; a sub-agent's events also build its history."""
        event = self.host.emit(replace(event, parent_call_id=self.scope.parent_call_id))
        if self.nested:
            history.apply(self.scope.messages, event, self.scope.parent_call_id)
        return event

    async def run(self, prompt: str, attachments: Attachments | None = None) -> None:
        host = self.host
        host.emit(ev.TurnStarted(prompt=prompt))
        if model_adapter.client_loading():
            host.emit(ev.Notice(text=LOADING_CLIENT.format(prompt=_first_line(prompt))))
            try:
                await model_adapter.client_ready()
            except asyncio.CancelledError:  # stopped while waiting for the client
                self._stopped_before_asking(prompt)
                return
        attached = Attached()
        try:
            hooked = await self.hooks.prompt_sent(prompt)
            if hooked.blocked:  # the prompt goes no further: not even into the history
                host.emit(ev.TurnEnded(state="failed", message=(
                    f"a hook blocked this message: {hooked.blocked}")))
                return
            context = await self._first_turn_context(prompt)
            if attachments is not None:  # @files, !command output
                attached = await attachments.take(prompt)
        except asyncio.CancelledError:  # stopped while mapping
            self._stopped_before_asking(prompt)
            return
        note = mode_note(host.state.mode, self.scope.messages)
        context = "\n\n".join(part for part in (note, context, attached.context, hooked.added)
                              if part) or None
        host.emit(ev.UserMessage(text=prompt, context=context))
        if attached.summary:
            host.emit(ev.Notice(text=attached.summary))
        try:
            state, message = await self._steps_until_hooks_agree()
        except asyncio.CancelledError:
            self._close_open_work()
            state, message = "interrupted", INTERRUPTED
        except TurnFailed as failure:
            state, message = failure.state, failure.message
        except Exception as exc:  # a bug in vibe-tui must not lose the session
            log.exception("turn %s crashed", self.turn_id)
            self._close_open_work(reason=f"internal error: {exc}")
            state, message = "failed", f"internal error: {type(exc).__name__}: {exc}"
        # The failure's words ride on TurnEnded alone: every view shows that, and an Error
        # event as well put the same paragraph on screen twice.
        host.emit(ev.TurnEnded(state=state, message=message))

    def _stopped_before_asking(self, prompt: str) -> None:
        """Esc before the first model call: the prompt is kept in the history, the turn ends."""
        self.host.emit(ev.UserMessage(text=prompt))
        self.host.emit(ev.TurnEnded(state="interrupted", message=INTERRUPTED))

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
            # the user nothing (evals/README.md, "Loop rules and the runs behind them").
            last_call = steps == self.scope.max_steps
            if last_call:
                self.emit(ev.UserMessage(text=LAST_CALL_NOTE if self.nested else TURN_LIMIT_NOTE))
            response = await self._call_model(words_only=last_call)
            self.emit(ev.AssistantMessage(text=response.text, tool_calls=response.tool_calls))
            for note in response.notes:
                self.emit(ev.Notice(text=note))
            self.final_text = response.text
            self._streamed = []
            self._record_usage(response, self.host.model)
            if not self.nested:
                self._report_context(response)
            if response.tool_calls:
                await self._run_calls(response.tool_calls)
                failing = self._repeats.failed_three_times()
                if failing:
                    raise TurnFailed("failed", f"stopped: the model repeated the same "
                                     f"failing {failing} call three times")
                continue
            if last_call and (not self.nested or not response.text.strip()):
                return "limit", self._limit_message(steps)
            if not self.nested and host.has_steering():
                continue
            cut_off = response.finish_reason == "length"
            words = response.text if response.words is None else response.words
            if words.strip() and not cut_off:
                return "completed", None
            if reprompted:
                return "failed", _no_answer_reason(response, cut_off)
            reprompted = True
            self.emit(ev.UserMessage(text=CUT_OFF_PROMPT if cut_off else EMPTY_ANSWER_PROMPT))

    async def _steps_until_hooks_agree(self) -> tuple[ev.TurnState, str | None]:
        """The turn's steps; a Stop hook that blocks the end sends the agent back to work
        with its reason (a few times a turn at most)."""
        state, message = await self._steps()
        continued = 0
        while state == "completed":
            verdict = await self.hooks.turn_ending(continued)
            if not verdict.blocked:
                break
            continued += 1
            self.emit(ev.UserMessage(text=STOP_HOOK_NOTE.format(reason=verdict.blocked)))
            state, message = await self._steps()
        return state, message

    def _limit_message(self, steps: int) -> str:
        return f"stopped after {steps} model calls (max_steps); send a message to continue"

    def _refresh_schemas(self) -> None:
        """Tools that joined or left since the last call (an MCP server ready mid-turn).
        Unchanged tools keep the same list, so the request prefix stays byte-identical."""
        if [schema["function"]["name"] for schema in self.schemas] != list(self.scope.tools):
            self.schemas = [schema_of(tool) for tool in self.scope.tools.values()]

    async def _call_model(self, words_only: bool = False) -> ModelResponse:
        settings = self._model_settings()
        if not settings.model:
            raise TurnFailed("failed", "no model is configured: pass --model (a LiteLLM "
                             "model string such as openai/gpt-4.1) or set one in the config")
        if self._repeats.repeated and settings.temperature == 0.0:
            # Greedy decoding gives the same call again for nearly the same context and
            # the hint alone rarely changes that; one sampled answer breaks the loop.
            settings = replace(settings, temperature=RESAMPLE_TEMPERATURE)
        if words_only or self._repeats.stuck:
            # The tools stay in the request (the provider's prompt cache keeps its prefix)
            # but the answer must be words: a note alone does not stop a small model
            # calling tools.
            settings = replace(settings, tool_choice="none")
        self._repeats.clear_flags()
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
                                                       self._on_text, self._progress)
                finally:
                    self._deltas.flush()  # every delta is out before the answer or an error
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
                    f"{error.summary or error.message} (retrying in {delay:.1f} s, "
                    f"try {attempt + 1} of {tries})")))
                await asyncio.sleep(delay)
                continue
            self._log_model_call(settings.model, started, response, raw)
            self.scope.context.calibrate(raw, response.prompt_tokens)
            self._raw_prompt = raw
            return response
        raise AssertionError("unreachable")

    def _model_settings(self) -> model_adapter.ModelSettings:
        return turn_settings(self.host.model_settings(), self.scope.options.model)

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
        if error.summary:
            raise TurnFailed("failed", error.summary)
        template = FAILURE_MESSAGES.get(error.kind, "the model call failed: {error}")
        raise TurnFailed("failed", template.format(model=model, error=error.message))

    def _on_text(self, text: str) -> None:
        self._streamed.append(text)
        self._deltas.add(text)

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
        self.scope.context.answered(response.prompt_tokens, response.completion_tokens)
        prompt = response.prompt_tokens or self.scope.context.estimate(self._raw_prompt)
        completion = response.completion_tokens or len(response.text) // 4
        self._emit_context_usage(prompt + completion, self._window)

    def _emit_context_usage(self, tokens: int, window: ctx.Window) -> None:
        self.emit(ev.ContextUsage(model=self.host.model, tokens=tokens,
                  window=window.tokens, percent=round(100 * tokens / max(1, window.tokens)),
                  window_source=window.source, note=window.note))

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


def _first_line(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit and line == text.strip() else line[:limit] + "…"
