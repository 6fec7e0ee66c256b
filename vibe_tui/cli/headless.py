"""Headless mode (``vibe-tui -p TASK``): one turn, printed as text or as JSONL events.

Nobody can answer an approval here, so the session turns every "ask" into a denial the
model is told about (the events show both the request and the denial).
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import aclosing
from typing import TextIO

from vibe_tui.core import events as ev
from vibe_tui.core.hook_lines import hook_line
from vibe_tui.core.custom_commands import expand_command
from vibe_tui.core.plan import PlanItem, checklist, plan_of, progress
from vibe_tui.core.result_kind import result_kind
from vibe_tui.core.session import Session


async def run_headless(session: Session, task: str, output_format: str = "text",
                       out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``task`` to the end of its turn; exit code 0 only when it completed."""
    out = out or sys.stdout
    err = err or sys.stderr
    printer = JsonlPrinter(out) if output_format == "jsonl" else TextPrinter(out, err)
    expanded = expand_command(session.workspace, task)
    if expanded.note:
        print(f"vibe-tui: {expanded.note}", file=err)
    turn_id = session.send(expanded.text, expanded.options)
    state = "failed"
    async for event in session.events(after=session.restored_until):
        printer.show(event)
        if isinstance(event, ev.TurnEnded) and event.turn_id == turn_id:
            state = event.state
            break
    await session.close()
    return 0 if state == "completed" else 1


async def start_model(session: Session, err: TextIO | None = None) -> ev.ModelFailed | None:
    """For ``-p`` and ``serve``: the session boots the local model when no other is
    configured, its progress drawn on stderr from the events. The failure, if it failed."""
    after = session.event_log[-1].id if session.event_log else 0
    watch = asyncio.create_task(_show_model_start(session, after, err or sys.stderr))
    await session.start_model()
    if not any(isinstance(event, (ev.ModelReady, ev.ModelFailed))
               for event in session.event_log if event.id > after):
        watch.cancel()  # a model was configured: nothing started
        return None
    outcome = await watch  # the session already holds its last event
    return outcome if isinstance(outcome, ev.ModelFailed) else None


async def _show_model_start(session: Session, after: int,
                            err: TextIO) -> ev.ModelReady | ev.ModelFailed:
    from vibe_tui.local.weights import stderr_progress

    show = stderr_progress("the local model", err)
    async with aclosing(session.events(after=after)) as events:
        async for event in events:
            if isinstance(event, ev.ModelProgress):
                show(event.done, event.total, event.phase)
            elif isinstance(event, (ev.ModelReady, ev.ModelFailed)):
                return event
    raise RuntimeError("the session closed while its model was starting")


class JsonlPrinter:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def show(self, event: ev.Event) -> None:
        self.out.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        self.out.flush()


class TextPrinter:
    """The answer on stdout as it streams; tool activity and problems on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self._at_line_start = True
        self._plan: list[PlanItem] | None = None  # the plan last printed

    def show(self, event: ev.Event) -> None:
        plan = plan_of(event)
        if event.parent_call_id is not None:
            self._show_subagent_event(event)
        elif plan is not None:
            self._show_plan(plan)
        elif isinstance(event, ev.ToolCall) and result_kind(event.tool, None) == "plan":
            self._note(f"→ {event.tool}")  # its arguments are the plan printed next
        elif isinstance(event, ev.TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._at_line_start = event.text.endswith("\n")
        elif isinstance(event, ev.AssistantMessage):
            self._end_line()
        elif isinstance(event, ev.ToolCall):
            self._note(f"→ {event.tool}: {event.summary}")
        elif isinstance(event, ev.ApprovalResolved) and event.by == "headless":
            self._note("  denied: needs approval (use --allow or --mode)")
        elif isinstance(event, ev.ToolResult) and event.status != "ok":
            first_line = event.output.strip().splitlines()[0] if event.output.strip() else ""
            self._note(f"  {event.status}: {first_line[:200]}")
        elif isinstance(event, ev.Error):
            self._note(f"error: {event.message}")
        elif isinstance(event, ev.Notice):
            self._note(event.text)
        elif isinstance(event, ev.HookRan):
            self._note(f"  {hook_line(event, limit=400)}")
        elif isinstance(event, ev.TurnEnded) and event.state != "completed":
            self._note(f"turn {event.state}: {event.message or ''}".rstrip(": "))

    def _show_plan(self, plan: list[PlanItem]) -> None:
        """The checklist, when it changed: the model may send the same plan again."""
        if plan == self._plan:
            return
        self._plan = plan
        lines = checklist(plan).splitlines()
        self._note("\n".join([progress(plan), *(f"  {line}" for line in lines)]))

    def _show_subagent_event(self, event: ev.Event) -> None:
        """Only the sub-agent's calls, indented; its report is the task call's result."""
        if isinstance(event, ev.ToolCall):
            self._note(f"  ↳ {event.tool}: {event.summary}")
        elif isinstance(event, ev.ToolResult) and event.status != "ok":
            first_line = event.output.strip().splitlines()[0] if event.output.strip() else ""
            self._note(f"    {event.status}: {first_line[:200]}")

    def _end_line(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True

    def _note(self, text: str) -> None:
        self._end_line()
        self.err.write(text + "\n")
        self.err.flush()
