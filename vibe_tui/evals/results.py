"""What a run produced, read from the agent's JSONL events: steps, tokens, cost, the answer,
the commands that ran (for a task's ``forbid`` patterns), and the result record."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from vibe_tui.evals.task import Task

# Tools whose arguments are shell commands the agent ran (forbid markers look at these).
COMMAND_ARGUMENT = {"bash": "command", "interactive_start": "command",
                    "interactive_send": "input"}


@dataclass
class EventSummary:
    steps: int = 0  # model calls, sub-agents' included
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # None while no model call had a known price
    answer: str = ""  # the main agent's last words
    turn_state: str | None = None
    commands_run: list[str] = field(default_factory=list)
    tools_used: list[str] = field(default_factory=list)  # every tool call, in order


def summarize_events(lines: list[str]) -> EventSummary:
    summary = EventSummary()
    commands: dict[str, str] = {}
    for line in lines:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a timeout
        if isinstance(event, dict):
            _take(summary, event, commands)
    return summary


def _take(summary: EventSummary, event: dict[str, Any], commands: dict[str, str]) -> None:
    kind = event.get("type")
    main_agent = "parent_call_id" not in event
    if kind == "usage":
        summary.steps += 1
        summary.prompt_tokens += int(event.get("prompt_tokens") or 0)
        summary.completion_tokens += int(event.get("completion_tokens") or 0)
        if event.get("cost") is not None:
            summary.cost = (summary.cost or 0.0) + float(event["cost"])
    elif kind == "assistant_message" and main_agent and str(event.get("text", "")).strip():
        summary.answer = event["text"]
    elif kind == "turn_ended" and main_agent:
        summary.turn_state = event.get("state")
    elif kind == "tool_call":
        summary.tools_used.append(str(event.get("tool")))
        argument = COMMAND_ARGUMENT.get(str(event.get("tool")))
        args = event.get("args") or {}
        if argument and isinstance(args, dict) and isinstance(args.get(argument), str):
            commands[str(event.get("call_id"))] = args[argument]
    elif kind == "tool_result" and event.get("status") != "denied":
        # A call the policy or headless mode refused never ran; anything else did.
        command = commands.pop(str(event.get("call_id")), None)
        if command is not None:
            summary.commands_run.append(command)


def forbidden_commands(task: Task, commands: list[str]) -> list[str]:
    return [command for command in commands
            if any(re.search(pattern, command) for pattern in task.forbid)]


@dataclass
class RunResult:
    task: str
    run: int
    status: str  # pass | fail | timeout | error | skipped
    passed: bool
    steps: int = 0
    tokens: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    time_s: float = 0.0
    started: float | None = None  # wall clock (epoch s) of the agent's start and end
    ended: float | None = None
    turn_state: str | None = None
    exit_code: int | None = None  # of the agent process
    check_exit: int | None = None
    forbidden: list[str] = field(default_factory=list)
    tools_used: list[str] = field(default_factory=list)
    answer: str = ""
    check_output: str = ""
    note: str = ""
    workspace: str | None = None  # kept with --keep

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
