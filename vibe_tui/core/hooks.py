"""Hooks: the user's shell commands, run at named points of a turn.

Before a tool call (``PreToolUse``), after it (``PostToolUse``), when the user sends a
message (``UserPromptSubmit``) and when the agent is about to end its turn (``Stop``).
Each hook gets the event as JSON on stdin, in Claude Code's shape, and answers the way
Claude Code's hooks do: exit code 2 blocks with its stderr as the reason; exit code 0
with JSON on stdout may block (``"decision": "block"``, or ``permissionDecision``
"deny" or "ask" before a tool call) and may add context for the model
(``additionalContext``; a prompt hook's plain stdout too). Any other exit code, or a
timeout, is an error the turn goes on past. A hook never grants anything: "allow" and
"approve" change nothing, so deny rules and approvals still hold.

Hooks run like the agent's commands: in the sandbox, with the same environment, killed
with everything they started at their timeout or when the user interrupts.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from vibe_tui.config.hook_settings import CLAUDE_TOOL_NAMES, HookSpec
from vibe_tui.core import events as ev
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.shell import CommandResult, CommandSetup, run_command

BLOCK_EXIT_CODE = 2
# What a hook may put in front of the model or the user: enough for a reason, not a dump.
MAX_MESSAGE_CHARS = 4000
MAX_SHOWN_OUTPUT_CHARS = 2000
# A Stop hook may send the agent back to work this many times per turn, not forever.
MAX_STOP_CONTINUATIONS = 3


@dataclass
class Verdict:
    """What the hooks of one point said, all together."""

    blocked: str | None = None  # the reason, when any hook blocked
    ask: str | None = None  # a PreToolUse hook wants the user asked, and why
    context: list[str] = field(default_factory=list)

    @property
    def added(self) -> str:
        return "\n".join(self.context)


@dataclass(frozen=True)
class HookPoint:
    """One point a turn reaches: the event's name, what the hook reads, the call it is for."""

    event: str
    payload: dict[str, Any]
    tool: str | None = None
    call_id: str | None = None


class Hooks:
    """The configured hooks of a session, run for one turn's points."""

    def __init__(self, specs: list[HookSpec], tool_context: ToolContext,
                 emit: Callable[[ev.Event], Any], common: dict[str, Any]) -> None:
        self.specs = specs
        self.tool_context = tool_context
        self.emit = emit
        self.common = common  # session_id, cwd, transcript_path, permission_mode

    def wanted(self, event: str, tool: str | None = None) -> list[HookSpec]:
        return [spec for spec in self.specs if spec.event == event and spec.matches(tool)]

    async def before_tool(self, tool: str, args: dict[str, Any], call_id: str) -> Verdict:
        if not self.wanted("PreToolUse", tool):
            return Verdict()  # every tool call passes here: no payload without a hook
        return await self.fire(HookPoint("PreToolUse", _tool_fields(tool, args), tool, call_id))

    async def after_tool(self, tool: str, args: dict[str, Any], call_id: str,
                         response: Callable[[], dict[str, Any]]) -> Verdict:
        """``response`` builds the result's description, only when a hook will read it."""
        if not self.wanted("PostToolUse", tool):
            return Verdict()
        payload = {**_tool_fields(tool, args), "tool_response": response()}
        return await self.fire(HookPoint("PostToolUse", payload, tool, call_id))

    async def prompt_sent(self, prompt: str) -> Verdict:
        return await self.fire(HookPoint("UserPromptSubmit", {"prompt": prompt}))

    async def turn_ending(self, continued: int) -> Verdict:
        """Stop hooks; a block sends the agent back to work, at most a few times a turn."""
        if continued >= MAX_STOP_CONTINUATIONS:
            return Verdict()
        return await self.fire(HookPoint("Stop", {"stop_hook_active": continued > 0}))

    async def fire(self, point: HookPoint) -> Verdict:
        specs = self.wanted(point.event, point.tool)
        verdict = Verdict()
        if not specs:
            return verdict
        payload = {**self.common, "hook_event_name": point.event, **point.payload}
        data = json.dumps(payload, ensure_ascii=False, default=str).encode()
        runs = await asyncio.gather(*(self._run(spec, point, data) for spec in specs))
        for run in runs:
            if run.blocked and verdict.blocked is None:
                verdict.blocked = run.reason or f"a hook blocked it ({run.command})"
            if run.ask and verdict.ask is None:
                verdict.ask = run.ask
            if run.context:
                verdict.context.append(run.context)
        return verdict

    async def _run(self, spec: HookSpec, point: HookPoint, data: bytes) -> HookRun:
        started = time.monotonic()
        setup = CommandSetup(cwd=self.tool_context.workspace, stdin=data, env={
            "CLAUDE_PROJECT_DIR": str(self.tool_context.workspace),
            "VIBE_TUI_PROJECT_DIR": str(self.tool_context.workspace)})
        try:
            result = await run_command(spec.command, self.tool_context, spec.timeout_s, setup)
        except ToolError as error:  # the sandbox cannot start, bash is missing
            run = HookRun(spec.command, "failed", None, output=str(error))
        else:
            run = read_result(spec, point.event, result)
        self.emit(ev.HookRan(
            hook_event=point.event, command=spec.command, status=run.status,
            exit_code=run.exit_code, output=_shorter(run.output, MAX_SHOWN_OUTPUT_CHARS),
            reason=run.reason or run.ask or run.message, context=run.context,
            call_id=point.call_id, tool=point.tool, source=spec.source,
            duration_s=round(time.monotonic() - started, 4)))
        return run


@dataclass
class HookRun:
    command: str
    status: ev.HookStatus
    exit_code: int | None
    output: str = ""
    reason: str | None = None  # why it blocked
    ask: str | None = None
    context: str | None = None
    message: str | None = None  # for the user (``systemMessage``, an error's stderr)

    @property
    def blocked(self) -> bool:
        return self.status == "blocked"


def read_result(spec: HookSpec, event: str, result: CommandResult) -> HookRun:
    """What one hook's exit code and output say, by Claude Code's conventions."""
    stdout, stderr = result.stdout.text().strip(), result.stderr.text().strip()
    shown = "\n".join(part for part in (stdout, stderr) if part)
    run = HookRun(spec.command, "ok", result.returncode, output=shown)
    if result.timed_out:
        run.status, run.exit_code = "timeout", None
        run.message = f"the hook did not finish in {spec.timeout_s:g} s and was stopped"
    elif result.returncode == BLOCK_EXIT_CODE:
        run.status = "blocked"
        run.reason = _shorter(stderr or stdout or "a hook blocked it", MAX_MESSAGE_CHARS)
    elif result.returncode != 0:
        run.status = "failed"
        run.message = _shorter(stderr or f"exit code {result.returncode}", MAX_MESSAGE_CHARS)
    elif stdout.startswith("{"):
        _read_json(run, stdout)
    elif stdout and event == "UserPromptSubmit":
        run.context = _shorter(stdout, MAX_MESSAGE_CHARS)
    return run


def _read_json(run: HookRun, stdout: str) -> None:
    try:
        answer = json.loads(stdout)
    except ValueError:
        return  # text that happens to start with a brace: shown, nothing more
    if not isinstance(answer, dict):
        return
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    reason = _text(specific.get("permissionDecisionReason")) or _text(answer.get("reason"))
    decision = specific.get("permissionDecision")
    if answer.get("decision") == "block" or decision == "deny":
        run.status = "blocked"
        run.reason = reason or "a hook blocked it"
    elif decision == "ask":
        run.ask = reason or "a hook asks for your approval"
    context = _text(specific.get("additionalContext"))
    run.context = _shorter(context, MAX_MESSAGE_CHARS) if context else None
    run.message = _text(answer.get("systemMessage"))


def _tool_fields(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """``tool_name`` and ``tool_input`` as a Claude Code hook reads them; our own names
    ride along, and a ``path`` is also given as ``file_path`` (Claude Code's key)."""
    tool_input = dict(args)
    if isinstance(args.get("path"), str) and "file_path" not in args:
        tool_input["file_path"] = args["path"]
    return {"tool_name": CLAUDE_TOOL_NAMES.get(tool, tool), "vibe_tool_name": tool,
            "tool_input": tool_input}


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _shorter(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more]"

