"""Small-model steps: the turn of a model the config marks as small (the embedded one).

Free tool calling is where a small model fails: it loops, edits when told not to and does
not stop to answer (evals/README.md). Here the harness carries the plan. It gathers the
context itself (``step_context``), runs the command the task names to see the failure,
then asks for one step at a time from a small set (answer, read, run, edit, write, rename,
start and type), with the answer held to a JSON schema that llama.cpp enforces with a
grammar (``step_protocol``), so a step is never malformed. Each step becomes the same tool
calls a capable model would make: they show in the conversation and the timeline and pass
the same policy and approvals.
An edit of a short file asks the model for the file whole; a longer one is checked against
the file before it is applied; a rename is carried out by the harness in every file
(``step_changes``); a change the task asks for in a file it names, or the code its failing
command points to, is asked for that way before the first step (``step_targets``). The
task's command runs again after each change. A task that asks for a helper (the task
tool) has the harness send one, which works in these steps too, held to reading and
answering. The turn always ends with an answer in words; an answer the schema cut at a
quote is finished without it.

The request is the short fixed prompt and one user message: the task and its context
first, then the steps so far, appended; what stays the same from one step to the next is
a prefix llama.cpp's prompt cache keeps. When the request would not fit the model's
window, the oldest step results give way to their first line.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from dataclasses import replace
from typing import Any

from vibe_tui.core import events as ev
from vibe_tui.core import history, step_answers, step_context, step_edits
from vibe_tui.core.host import LoopHost
from vibe_tui.core.loop import RESAMPLE_TEMPERATURE, AgentLoop
from vibe_tui.core.model import ModelSettings
from vibe_tui.core.prompts import ANSWER_FOUND, ANSWER_NOW, HELPER_BRIEF, STEP_PROMPT
from vibe_tui.core.scope import Scope
from vibe_tui.core.step_changes import ChangeSteps
from vibe_tui.core.settings import turn_settings
from vibe_tui.core.step_protocol import (
    ANSWER_FORMAT,
    LOOK_FORMAT,
    READ_FORMAT,
    STEP_FORMAT,
    TERMINAL_FORMAT,
    TYPE_FORMAT,
    AnswerStream,
    Step,
    answer_opening,
    cut_short,
    finished_answer,
    hands_off,
    parse_step,
)
from vibe_tui.tools.base import ToolError
from vibe_tui.tools.paths import resolve_in_workspace

STEP_LIMIT = 10  # each step of a 1.5B model on two cores takes 10-30 s
# A step is a short JSON object, an answer a few paragraphs, a written file a small one.
# Held to a schema, a small model can still run on inside a string until the context
# is full (minutes on two cores): this caps what one step may cost.
STEP_MAX_TOKENS = 1024
# An answer asked for: past a few hundred tokens the 1.5B model repeats itself (two
# answers of 1,024 tokens took 200 s at subagent-explore).
ANSWER_MAX_TOKENS = 512
# The steps' time, from the turn's start: after it the answer is asked for (send a
# message to go on). On two cores a step takes 10-70 s and the answer up to 60 s; the
# issue asks for 4 minutes, and at 150 s large-file's runs still took 212 s and 254 s.
STEP_TIME_S = 100.0
# Few for text, but a digit is a token to Qwen's tokenizer: pages of a CSV file filled the
# 1.5B model's 8,192-token window in five reads (evals/README.md).
CHARS_PER_TOKEN = 2.0
ANSWER_REST_MAX_TOKENS = 512
FAILED_EDITS_LIMIT = 3
ECHOES_LIMIT = 2  # answers that only repeat the question, sent back
READ_LINES = 150
READS_PER_FILE = 2
_NUMBERED = re.compile(r"^ *\d+\t", re.MULTILINE)


def turn_loop(host: LoopHost, turn_id: int, scope: Scope,
              warming: asyncio.Task[None] | None = None) -> AgentLoop:
    """The loop for a turn of the main agent: small-model steps or the free tool loop.
    ``warming``: the prompt being read ahead, which the first step waits for."""
    if host.config.step_mode:
        return StepLoop(host, turn_id, scope, warming)
    return AgentLoop(host, turn_id, scope)


def helper_loop(host: LoopHost, turn_id: int, scope: Scope) -> AgentLoop:
    """The loop for a sub-agent (the ``task`` tool): small-model steps that only read,
    or the free tool loop."""
    if host.config.step_mode:
        return StepLoop(host, turn_id, scope)
    return AgentLoop(host, turn_id, scope)


class StepLoop(ChangeSteps):
    def __init__(self, host: LoopHost, turn_id: int, scope: Scope,
                 warming: asyncio.Task[None] | None = None) -> None:
        super().__init__(host, turn_id, scope)
        # llama.cpp keeps one prompt in its cache: a step sent while the prompt is read
        # ahead would be undone by it, so the first waits (it would read as much itself).
        self._warming = warming
        self._sampled = False
        self.schemas = []  # the steps are the interface; no tool schemas in the request
        self.task = ""
        self.given: str | None = None
        self.context = ""
        self._naming = ""
        self._named: list[str] = []
        self._room = 1 << 30  # characters the request may take, set from the model's window
        self.log: list[str] = []  # the steps so far, as the model reads them
        self._cleared = 0  # the oldest entries of the log cleared to make room
        self.checks: list[str] = []
        self._format = self._steps_format = STEP_FORMAT  # the turn's steps (and the answer)
        self._hands_off = False  # the task must change nothing
        self._pressed = False  # an answer that left the work undone was sent back
        self._placed = False  # the answer's definitions were checked against the files
        self._parts: list[str] = []  # the changes the task lists, when it lists several
        self._answer = AnswerStream()
        self._rewrite: step_edits.Rewrite | None = None  # asking for a file whole
        self._continuing = None
        self._results: dict[str, ev.ToolResult] = {}
        self._done: dict[str, int] = {}  # step key -> its number
        self._outcomes: list[tuple[Step, bool]] = []
        self._terminal: str | None = None  # the session a type step types into
        self._waiting = False  # that session's program runs, waiting for input

    def emit(self, event):
        event = super().emit(event)
        if isinstance(event, ev.ToolResult):
            self._results[event.call_id] = event
        elif isinstance(event, ev.UserMessage) and not event.steering and not self.given:
            self.given = event.context or ""  # the mode's note, @files, !command output
        return event

    async def _first_turn_context(self, prompt: str) -> str | None:
        self.task = prompt
        return None  # gathered by the steps, for every turn

    async def run_nested(self, prompt: str) -> str:
        self.task = prompt
        self.scope.max_steps = min(self.scope.max_steps, STEP_LIMIT)  # a helper's own scope
        return await super().run_nested(prompt)

    def _refresh_schemas(self) -> None:
        pass

    def _model_settings(self) -> ModelSettings:
        settings = turn_settings(self.host.model_settings(), self.scope.options.model)
        if self._rewrite is not None:  # the file in a fenced block, not a step
            return replace(settings, max_tokens=self._rewrite.max_tokens,
                           temperature=self._rewrite.temperature or settings.temperature)
        if self._continuing is not None:  # unheld, the 1.5B model can repeat itself
            return replace(settings, max_tokens=ANSWER_REST_MAX_TOKENS, stop_repeats=True)
        held = TYPE_FORMAT if self._waiting and self._format is TERMINAL_FORMAT else self._format
        settings = replace(settings, response_format=held, max_tokens=self._token_cap(),
                           stop_repeats=held is ANSWER_FORMAT)
        if self._sampled:
            self._sampled = False
            settings = replace(settings, temperature=RESAMPLE_TEMPERATURE)
        return settings

    def _token_cap(self) -> int:
        """What a request may generate: an answer asked for, less than a step."""
        return ANSWER_MAX_TOKENS if self._format is ANSWER_FORMAT else STEP_MAX_TOKENS

    def _request_messages(self) -> list[history.Message]:
        earlier = step_context.earlier_turns(self.scope.messages[:-1])
        parts = [f"Task: {self.task}", self.given, *earlier, self.context]
        if self._rewrite is not None:
            ask = self._rewrite.ask
        elif self._format is ANSWER_FORMAT:
            ask = ANSWER_FOUND if self._hands_off else ANSWER_NOW
        else:
            ask = ("The program waits for input: reply with the type step that answers its "
                   "question." if self._waiting else "Reply with the next step as one JSON object.")
        if self.log:
            # Again after the steps: having read one more file, the 1.5B model answered
            # about that file alone.
            ends = [self._naming, ask]
            room = self._room - sum(len(part or "") for part in [STEP_PROMPT, *parts, *ends])
            steps, self._cleared = step_context.fit_log(self.log, room, self._cleared)
            parts += ["Steps so far:\n\n" + "\n\n".join(steps), self._naming]
        parts.append(ask)
        messages = [{"role": "system", "content": STEP_PROMPT},
                    {"role": "user", "content": "\n\n".join(part for part in parts if part)}]
        if self._rewrite is not None:
            messages.append({"role": "assistant", "content": self._rewrite.opening})
        elif self._continuing is not None:
            messages.append({"role": "assistant", "content": self._continuing})
        return messages

    def _on_text(self, text: str) -> None:
        if self._rewrite is not None:
            return  # the file shows as the write's diff
        shown = self._answer.feed(text)
        if shown:
            self._streamed.append(shown)
            self._deltas.add(shown)

    # ---- the steps ------------------------------------------------------------------

    async def _steps(self) -> tuple[ev.TurnState, str | None]:
        self._deadline = time.monotonic() + STEP_TIME_S
        await self._gather()
        limit = min(self.scope.max_steps, STEP_LIMIT)
        failed_edits = repeats = echoed = 0
        for number in range(1, limit + 1):
            self._take_steering()
            if number == limit or failed_edits >= FAILED_EDITS_LIMIT or repeats >= 3:
                self._format = ANSWER_FORMAT
            elif self._format is not ANSWER_FORMAT and self._over_time():
                self._format = ANSWER_FORMAT
                self.emit(ev.Notice(text=f"small-model steps: {STEP_TIME_S:.0f} s of steps; "
                                         "asked for the answer (send a message to go on)"))
            step = await self._ask()
            if isinstance(step, str):
                self._note(f"Your reply was not a step: {step}. Reply with one JSON object.")
                continue
            if (step.action == "answer" and echoed < ECHOES_LIMIT
                    and step_answers.echoes(step.args["text"], self.task)):
                echoed += 1
                self._sampled = True
                self._note("Your answer only repeated the question. Answer it: use the "
                           "files and results above, or take a step to find out.")
                continue
            if step.action == "answer" and number < limit and await self._sent_back(
                    step.args["text"]):
                continue
            if step.action == "answer":
                self.emit(ev.AssistantMessage(text=step.args["text"]))
                self.final_text = step.args["text"]
                if self.final_text.strip():
                    self._report()
                    return "completed", None
                self._note("The answer was empty: say what you found or did.")
                self._format = ANSWER_FORMAT
                continue
            repeated = self._repeated(number, step)
            if repeated:
                self._note(repeated)
                repeats += 1
                self._sampled = True  # greedy decoding would give the same step again
                continue
            self._done[self._key(step)] = number
            ok = await self._apply(number, step)
            self._outcomes.append((step, ok))
            if step.action in ("edit", "write", "rename"):
                failed_edits = 0 if ok else failed_edits + 1
                if ok:
                    await self._after_change()
        return "limit", f"stopped after {limit} steps; send a message to continue"

    async def _ask(self) -> Step | str:
        if self._warming is not None:
            waited_from = time.monotonic()
            await asyncio.wait([self._warming])  # not cancelled with the turn
            self._warming = None
            self._deadline += time.monotonic() - waited_from  # the steps' time is the steps'
        self._answer = AnswerStream()
        response = await self._call_model()
        self._streamed = []
        self._record_usage(response, self.host.model)
        self._report_context(response)
        if response.finish_reason == "length" and self._answer.sent.strip():
            # An answer cut at the limit is still what the model said, and the user saw it.
            self.emit(ev.Notice(text=f"small-model steps: the answer reached the "
                                     f"{self._token_cap()}-token limit of a step"))
            return Step("answer", {"text": self._answer.sent})
        if response.finish_reason == "repeated":
            words = AnswerStream()
            words.feed(response.text)  # the answer up to where it began saying it again
            self.emit(ev.Notice(text="small-model steps: the answer began repeating itself; "
                                     "it ends where the repeat began"))
            return Step("answer", {"text": words.sent.rstrip() or self._answer.sent})
        step = parse_step(response.text)
        if isinstance(step, Step) and step.action == "answer" and cut_short(
                response.text, step.args["text"]):
            step = Step("answer", {"text": await self._finish_answer(step.args["text"])})
        return step

    async def _finish_answer(self, text: str) -> str:
        """The answer the schema cut at a quote, continued by the model without it."""
        self._continuing = answer_opening(text)
        self._answer = AnswerStream(raw=self._continuing, sent=text)
        response = await self._call_aside()
        return finished_answer(text, response.text)

    async def _sent_back(self, answer: str) -> bool:
        """An answer sent back with a note, each kind once a turn: one that leaves the
        work undone (``_undone``), or stops before the changes the task lists (the 1.5B
        model often describes a fix in words instead of making it), or that the files
        contradict (``step_answers.against_files``)."""
        undone = None if self._pressed or self._hands_off else self._undone(answer)
        if undone:
            self._pressed = True
            self._format = self._steps_format
            self._note(undone)
            return True
        if self._parts_left():
            self._parts = []
            return True
        if self._placed:
            return False
        self._placed = True
        note = await asyncio.to_thread(step_answers.against_files, self.host.workspace,
                                       self.task, answer, self._hands_off)
        if note:
            self._note(note)
            self._format = ANSWER_FORMAT
        return note is not None

    def _parts_left(self) -> bool:
        """Fewer changes made than the task lists: sends the list back."""
        made = self._made()
        if self._hands_off or not self._parts or made >= len(self._parts):
            return False
        self._format = self._steps_format
        self._note(step_answers.parts_note(self._parts, made))
        return True

    def _made(self) -> int:
        return sum(step_answers.changed_places(result.diff or "") or 1
                   for result in self._results.values()
                   if result.status == "ok" and result.tool in step_answers.CHANGING_TOOLS)

    def _repeated(self, number: int, step: Step) -> str | None:
        """Why the step is not taken, when it repeats one or pages on through a file."""
        key = self._key(step)
        if key in self._done:
            earlier = f"step {self._done[key]}" if self._done[key] else "a step taken for you"
            return (f"Step {number} repeats {earlier}, whose result is above; do something "
                    "else or answer.")
        path = step.args["path"] if step.action == "read" else None
        if sum(1 for done, _ in self._outcomes if done.action == "read"
               and done.args["path"] == path) >= READS_PER_FILE:
            # Asked to free disk space, the 1.5B model paged through a data file.
            return (f"Step {number} would read {path} a third time: what the task needs is "
                    "not further down it. Do something else or answer.")
        return None

    def _key(self, step: Step) -> str:
        """``step.key``, except that any read of a file short enough for one read is the
        same read (the 1.5B model asked for lines 7, 8, 9, 10 of a 6-line file)."""
        if step.action == "type":  # a wizard may ask for "y" twice
            return f"{step.key} {len(self._done)}"
        if step.action != "read":
            return step.key
        try:
            path = resolve_in_workspace(step.args["path"], self.host.workspace)
            with path.open("rb") as handle:
                short = sum(1 for _ in handle) <= READ_LINES
        except (ToolError, ValueError, OSError):
            return step.key
        return Step("read", {"path": step.args["path"]}).key if short else step.key

    def _report(self) -> None:
        """What the steps did, beside the model's account of it: a small model's answer
        can claim a change that never landed."""
        text = step_answers.changes_report([(step.args["path"], ok) for step, ok in self._outcomes
                                            if step.action in ("edit", "write")])
        if text:
            self.emit(ev.Notice(text=f"small-model steps: {text}"))

    def _take_steering(self) -> None:
        if self.nested:
            return  # a line the user types is for the main agent
        for text in self.host.take_steering():
            self.emit(ev.UserMessage(text=text, steering=True))
            self._note(f"The user added: {text}")

    def _note(self, text: str) -> None:
        self.log.append(text)

    async def _gather(self) -> None:
        self._hands_off = self.nested or hands_off(self.task, self.host.state.mode)
        if self._hands_off:  # a helper has only the reading tools
            self._steps_format = READ_FORMAT if self.nested else LOOK_FORMAT
        elif step_context.runs_in_terminal(self.task):
            self._steps_format = TERMINAL_FORMAT
        self._format = self._steps_format
        renaming = None if self._hands_off else step_context.task_rename(self.task)
        if renaming:
            # Asked for in so many words, a rename is the harness's to do: the 1.5B model
            # announced it and answered, or renamed the definition only.
            step = Step("rename", {"old": renaming[0], "new": renaming[1]})
            self._done[step.key] = 0
            await self._rename(step, f"Done first, as the task asks: {step.describe()}")
        window = await self.scope.context.window(self.host.model)
        self._room = int((window.tokens - STEP_MAX_TOKENS) * CHARS_PER_TOKEN)
        workspace = self.host.workspace
        gathered = await asyncio.to_thread(step_context.gather, workspace, self.task,
                                           listing_names=self._hands_off)
        self.context = gathered.text
        self._naming = gathered.naming
        self._named = gathered.named
        self._parts = step_context.task_parts(self.task)
        shown = f"; lines of {', '.join(gathered.shown)}" if gathered.shown else ""
        self.emit(ev.Notice(text=f"small-model steps: gathered the file list "
                                 f"({gathered.files} files){shown}"))
        for rel in gathered.whole:
            # Shown whole, it counts as read for the tools' read-first rule. (A small model
            # often reads it again all the same: told it is above, it answered instead.)
            self._current_text(rel)
        if gathered.answerable or (self.nested and self._naming):
            # The list holds the answer, or the search listed every line the helper was
            # sent to find: asked to go on, the 1.5B model read one more file and
            # reported that file alone.
            self._format = ANSWER_FORMAT
        if self.nested:
            return
        if "task" in self.scope.tools and step_context.sends_helper(self.task):
            await self._delegate()
        self.checks = step_context.task_commands(self.task)
        if self.checks and step_context.runs_in_terminal(self.task):
            command, self.checks = self.checks[0], []  # not re-run: it waits for answers
            step = Step("start", {"command": command})
            self._done[step.key] = 0
            await self._apply(0, step)
        elif self.checks:
            await self._run_check(self.checks[0], "the command the task names")
        if not step_context.runs_in_terminal(self.task):
            await self._change_named()

    async def _delegate(self) -> None:
        """Asked for in so many words, the helper is the harness's to send, with the task
        as its brief: the 1.5B model has no call of its own to get wrong."""
        ok, output = await self._call("task", {"prompt": HELPER_BRIEF + self.task})
        outcome = "its report" if ok else "it failed"
        self._note(f"Done first, as the task asks: sent a helper (the task tool); "
                   f"{outcome}:\n{step_context.clip_result(output)}")
        if ok and self._hands_off:
            # Asked to go on, the 1.5B model read a file again and answered about that.
            self._format = ANSWER_FORMAT

    async def _apply(self, number: int, step: Step) -> bool:
        args, problem = step.args, None
        if step.action == "rename":
            return await self._rename(step, f"Step {number}: {step.describe()}")
        if step.action == "read":
            tool, call_args = self._read_call(args)
        elif step.action == "run":
            tool, call_args = "bash", {"command": args["command"]}
        elif step.action == "start":
            tool, call_args = "interactive_start", {"command": args["command"]}
        elif step.action == "type":
            tool, call_args = "interactive_send", {"session_id": self._terminal or "none",
                                                   "input": args["text"] + "<enter>"}
        elif step.action == "write":
            tool, call_args = "write_file", {"path": args["path"], "content": args["content"]}
        else:
            tool, call_args, problem = await self._edit_call(args)
        ok, output = await self._call(tool, call_args)
        heading = f"Step {number}: {step.describe()}" if number else step.describe()
        if not ok and problem:
            output = f"{problem}\n{output}"
        if step.action == "run":
            heading += f": exit code {self._last_exit}"
        elif not ok:
            heading += ": failed"
        self._note(f"{heading}\n{step_context.clip_result(_NUMBERED.sub('', output))}")
        return ok

    def _read_call(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        try:
            path = resolve_in_workspace(args["path"], self.host.workspace)
        except (ToolError, ValueError, OSError):
            path = None
        if path is not None and path.is_dir():
            return "list_dir", {"path": args["path"]}
        line = args.get("line")
        offset = line if isinstance(line, int) and line > 1 else 1
        return "read_file", {"path": args["path"], "offset": offset, "limit": READ_LINES}

    async def _call(self, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
        """Run one tool call the way the free loop does; (ok, what the model reads)."""
        call_id = f"step_{secrets.token_hex(6)}"
        call = {"id": call_id, "type": "function",
                "function": {"name": tool, "arguments": json.dumps(args)}}
        self.emit(ev.AssistantMessage(text="", tool_calls=[call]))
        await self._run_calls([call])
        result = self._results.get(call_id)
        if result is None:
            return False, "no result"
        self._last_exit = result.exit_code
        if tool.startswith("interactive_"):
            self._terminal = result.meta.get("session_id", self._terminal)
            self._waiting = result.meta.get("state") == "running"
        return result.status == "ok", result.output

