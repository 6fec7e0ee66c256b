"""The call pipeline: each tool call the model asked for is checked, asked about, run and
answered, in the order the model gave them (reads that need no answer run side by side).

Precheck, policy, and for an "ask" the preview and an open approval; then the tool, with
what it changed recorded (``core/undo.py``); then one ToolResult with the text the model
reads and, for the views, the tool's ``kind`` and ``meta``. ``AgentLoop`` is built on this.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from vibe_tui.core import context as ctx
from vibe_tui.core import events as ev
from vibe_tui.core import history, undo
from vibe_tui.core.approvals import Answer, PendingApproval
from vibe_tui.core.hooks import Hooks
from vibe_tui.core.host import LoopHost
from vibe_tui.core.model import describe_arguments
from vibe_tui.core.repeats import RepeatGuard
from vibe_tui.core.result_kind import json_safe, result_kind
from vibe_tui.core.scope import Scope
from vibe_tui.policy.types import Decision, ToolRequest
from vibe_tui.tools.base import Tool, ToolError, ToolOutput
from vibe_tui.tools.task import current_runner

log = logging.getLogger(__name__)
E = TypeVar("E", bound=ev.Event)

# A cheap first cut before any counting; the real cap is a share of the context window.
MAX_RESULT_CHARS = 100_000
MAX_HOOK_RESPONSE_CHARS = 20_000


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
    hook_context: str = ""  # what PreToolUse hooks added for the model

    @property
    def runs_alongside(self) -> bool:
        """Read-only calls that need no answer may run concurrently."""
        return (self.error is None and self.denied is None and self.approval is None
                and self.request is not None and self.request.kind == "read")


class ToolCallPipeline:
    """The tool-call half of the agent loop; the loop supplies these."""

    host: LoopHost
    scope: Scope
    turn_id: int
    _window: ctx.Window | None
    _open_calls: dict[str, str]  # call id -> tool, until a result is given
    _repeats: RepeatGuard
    hooks: Hooks

    @property
    def nested(self) -> bool:
        return self.scope.nested

    def emit(self, event: E) -> E:
        raise NotImplementedError

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
        decision = host.decide(prepared.request, self.scope.options.allow)
        prepared.decision, prepared.reason = decision.action, decision.reason
        if decision.action == "deny":
            prepared.denied = f"denied: {decision.reason}"
            prepared.answered_by = "policy"
            return
        decision = await self._before_hooks(prepared, decision)
        if prepared.denied is not None:
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

    async def _before_hooks(self, prepared: PreparedCall, decision: Decision) -> Decision:
        """PreToolUse hooks: a block denies the call with their reason; an "ask" turns an
        allowed call into a question for the user. They never allow anything."""
        verdict = await self.hooks.before_tool(prepared.tool, prepared.args, prepared.call_id)
        prepared.hook_context = verdict.added
        if verdict.blocked:
            prepared.denied = f"blocked by a hook: {verdict.blocked}"
            prepared.answered_by = "hook"
        elif verdict.ask and decision.action == "allow":
            decision = Decision("ask", f"a hook asks: {verdict.ask}")
            prepared.decision, prepared.reason = decision.action, decision.reason
        return decision

    async def _after_hooks(self, prepared: PreparedCall, output: ToolOutput) -> ToolOutput:
        """PostToolUse hooks read what the call did; what they block or add, the model reads
        after the result (the call has run: nothing is undone)."""
        def response() -> dict[str, Any]:
            return {"output": output.text[:MAX_HOOK_RESPONSE_CHARS], "ok": output.ok,
                    "exit_code": output.exit_code, "diff": output.diff}

        verdict = await self.hooks.after_tool(prepared.tool, prepared.args, prepared.call_id,
                                              response)
        notes = [prepared.hook_context, verdict.added]
        if verdict.blocked:
            notes.append(f"a PostToolUse hook objects: {verdict.blocked}")
        added = "\n".join(note for note in notes if note)
        if not added:
            return output
        return replace(output, text=f"{output.text}\n[hooks: {added}]")

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
        duration = time.monotonic() - started
        output = await self._after_hooks(prepared, output)
        status: ev.ResultStatus = "ok" if output.ok else "error"
        await self._give_result(prepared, output, status, duration)

    async def _run_tool(self, tool: Tool, prepared: PreparedCall) -> ToolOutput:
        """Run the tool, recording what it changed in the workspace (the Changes screen's
        diffs and reverts, /rewind's checkpoints); only the hunks the user kept are applied."""
        tool_context = self.scope.tool_context

        async def run() -> ToolOutput:
            run_hunks = getattr(tool, "run_hunks", None)
            if prepared.hunks is not None and run_hunks is not None:
                return await run_hunks(prepared.args, tool_context, prepared.hunks, prepared.diff)
            return await tool.run(prepared.args, tool_context)

        return await undo.recorded_call(self.host.changes, self.host.checkpoints, self.turn_id,
                                        prepared.request, run)

    def _subagent_runner(self, call_id: str):
        async def run(prompt: str) -> str:
            return await self.host.run_subagent(self.turn_id, call_id, prompt)

        return None if self.nested else run  # a sub-agent starts no sub-agents

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
        reads_only = prepared.request is not None and prepared.request.kind == "read"
        text += self._repeats.note(prepared.tool, prepared.args, status,
                                   changed_files=bool(output.diff), reads_only=reads_only)
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


def summarise(tool: str, args: dict[str, Any]) -> str:
    """One line for the timeline: the argument that says most about the call."""
    return history.describe_call(tool, args)
