"""The steps that change files, for ``StepLoop`` (``core/step_mode.py``): a rename carried
out by the harness in every file, a change the task asks for in a named file made first
(``step_targets``), and an edit made by asking the model for the file (or the definition
the edit falls in) whole, checked against the file before it is applied (``step_edits``).
Each change is a ``write_file`` or ``edit_file`` call like any other, and the task's
command runs again after it."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from vibe_tui.core import events as ev
from vibe_tui.core import step_answers, step_context, step_edits, step_targets
from vibe_tui.core.loop import RESAMPLE_TEMPERATURE, AgentLoop
from vibe_tui.core.model import ModelResponse
from vibe_tui.core.step_protocol import LOOK_FORMAT, Step
from vibe_tui.tools.base import ToolError
from vibe_tui.tools.paths import resolve_in_workspace


# A file the task names is asked for again while its command fails, this many times in
# all: three rounds of the test file took add-feature-with-test past five minutes.
TARGET_ROUNDS = 2


class ChangeSteps(AgentLoop):
    """What ``StepLoop`` has that these use: the task, the steps' log and outcomes, the
    file being asked for whole, and one tool call at a time."""

    task: str
    checks: list[str]  # the commands the task names, run again after each change
    _outcomes: list[tuple[Step, bool]]
    _rewrite: step_edits.Rewrite | None
    _continuing: str | None  # an answer cut at a quote, to go on with
    _hands_off: bool
    _parts: list[str]
    _named: list[str]
    _done: dict[str, int]
    _format: dict[str, Any]  # the steps offered now
    _last_exit: int | None = None
    _failure: str | None = None  # the output of the task's command, when it failed
    _deadline = float("inf")  # time.monotonic() when the steps' time is up

    def _note(self, text: str) -> None:
        raise NotImplementedError

    def _made(self) -> int:
        raise NotImplementedError

    def _over_time(self) -> bool:
        return time.monotonic() > self._deadline

    async def _call_aside(self) -> ModelResponse:
        """A model call that is not a step (a file written whole, an answer finished),
        asked for by setting ``_rewrite`` or ``_continuing``; its text is the caller's to
        show."""
        try:
            response = await self._call_model()
        finally:
            self._rewrite = self._continuing = None
        self._streamed = []
        self._record_usage(response, self.host.model)
        return response

    async def _call(self, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
        raise NotImplementedError

    async def _rename(self, step: Step, heading: str) -> bool:
        """Every file that has the old name, written with the new one: one write each,
        each shown and passed through the policy like any other."""
        try:
            plan = await asyncio.to_thread(step_edits.rename_plan, self.host.workspace,
                                           step.args["old"], step.args["new"])
        except step_edits.NotLocated as exc:
            self._note(f"{heading}: failed\n{exc}")
            return False
        done, failed = [], []
        for rel, content in plan:
            self._current_text(rel)  # read by the harness: the read-first rule is met
            ok, output = await self._call("write_file", {"path": rel, "content": content})
            self._outcomes.append((Step("write", {"path": rel}), ok))
            if ok:
                done.append(rel)
            else:
                failed.append(f"{rel}: {step_context.clip(output, 200)}")
        self._note("\n".join([f"{heading}: changed {', '.join(done) or 'no file'}", *failed]))
        return bool(done) and not failed

    async def _change_named(self) -> None:
        """Each change the task asks for in a file it names, made first: the file (or the
        definition the sentence names) asked for whole, with the sentence."""
        if self._hands_off:
            return
        targets = await asyncio.to_thread(self._targets)
        for target in targets:
            for again in range(TARGET_ROUNDS):
                # Still failing after the change: asked again, with the new failure (at
                # json-repair the 1.5B model fixed one of three errors a round).
                if not await self._change_target(target, resample=not again) or not self._failure:
                    break

    async def _change_target(self, target: step_targets.Target, resample: bool) -> bool:
        """One change the task asks for: asked for whole, applied, checked. ``resample``:
        an unchanged reply is asked for once more."""
        content = self._current_text(target.path)
        if content is None:
            return False
        whole = target.whole_file and step_edits.rewritable(content)
        region = None
        if target.line:
            region = step_edits.region_at(target.path, content, target.line)
        elif not whole:
            region = step_edits.region_named(target.path, content, target.names)
        if region is None and not whole:
            return False  # left to the model's own steps
        heading = f"Done first, as the task asks: edit {target.path}"
        new, problem = await self._rewritten(target.path, content, region, target.sentence,
                                             resample)
        if new is None:
            self._note(f"{heading}: failed\n{problem}")
            return False
        if region is None:
            ok, output = await self._call("write_file", {"path": target.path, "content": new})
        else:
            ok, output = await self._call("edit_file", {
                "path": target.path, "old_string": region.text, "new_string": new})
        self._outcomes.append((Step("write", {"path": target.path}), ok))
        self._note(f"{heading}{'' if ok else ': failed'}\n{step_context.clip_result(output)}")
        if ok:
            await self._after_change()
        return ok

    def _targets(self) -> list[step_targets.Target]:
        """The files the task says to change or else, for a task to fix what its failing
        command shows, the definition the failure points to. Blocking."""
        targets = step_targets.change_targets(self.host.workspace, self.task)
        if targets or not (self._failure and self.checks and step_context.asks_change(self.task)):
            return targets
        return step_targets.failure_targets(self.host.workspace, self._failure, self.checks[0])

    def _undone(self, answer: str) -> str | None:
        """A change the answer tells of or the task asks for when no step made one; or,
        after the changes, the task's command still failing (the 1.5B model answered "The
        test now passes" under its failed run)."""
        if not self._made():
            unmade = step_answers.unmade_change(answer, self.task)
            return unmade and (f"{unmade}, but no file was changed: an answer changes "
                               "nothing. Make the change now with an edit, write or rename "
                               "step, or answer that you could not.")
        if self._failure and self.checks:
            return step_answers.still_failing(answer, self.checks[0])
        return None

    async def _after_change(self) -> None:
        """The task's command again, and once every change the task lists is made, only
        looking and answering: left to go on, the 1.5B model changed the README
        (json-edit)."""
        if self.checks:
            await self._run_check(self.checks[0], "after the change")
        if len(self._parts) > 1 and self._made() >= len(self._parts):
            self._format = LOOK_FORMAT
            self._note(f"The {len(self._parts)} changes the task lists are made: "
                       "check them above, then answer.")

    async def _run_check(self, command: str, why: str) -> None:
        # Run again after every change: the model's own run of it would only repeat this.
        self._done[Step("run", {"command": command}).key] = 0
        ok, output = await self._call("bash", {"command": command})
        passed = ok and self._last_exit == 0
        self._failure = None if passed else output
        note = ""
        if passed and self._made():
            note = "It passes now. If every part of the task is done, answer."
        elif passed:  # "It passes now" before a change: the 1.5B model answered at once
            note = "It passes before any change: what the task asks is still to be done."
        trace = "" if passed else await asyncio.to_thread(
            step_context.trace_excerpts, self.host.workspace, output, self._named)
        self._note("\n".join(part for part in (
            f"Ran `{command}` ({why}): {'passed' if passed else 'failed'}",
            step_context.clip_result(output), trace and f"The code it points to:\n{trace}",
            note) if part))

    async def _edit_call(self, args: dict[str, Any]) -> tuple[str, dict[str, Any], str | None]:
        """The call for an edit step, and why it could not be made as asked (the call then
        goes as written: the tool refuses it, in the timeline). A short file is asked for
        whole, and in a long one the definition the edit falls in; when that fails, or
        neither fits, the edit goes by the model's search text."""
        call = {"path": args["path"], "old_string": args["search"], "new_string": args["replace"]}
        content = self._current_text(args["path"])
        if content is None:
            return "edit_file", call, None  # the tool says what is wrong with the path
        problem, region = None, None
        if not step_edits.rewritable(content):
            region = step_edits.region_of(args["path"], content, args["search"])
        if region or step_edits.rewritable(content):
            new, problem = await self._rewritten(args["path"], content, region)
            if new is not None and region is None:
                return "write_file", {"path": args["path"], "content": new}, None
            if new is not None:
                return "edit_file", {**call, "old_string": region.text, "new_string": new}, None
        try:
            located = step_edits.locate(content, args["search"], args["replace"])
        except step_edits.NotLocated as exc:
            return "edit_file", call, "\n".join(part for part in (problem, str(exc)) if part)
        call.update(old_string=located.old, new_string=located.new)
        if located.replace_all:
            call["replace_all"] = True
        return "edit_file", call, problem

    def _current_text(self, rel: str) -> str | None:
        """The file's text, now counted as read (the harness read it for the model)."""
        try:
            path = resolve_in_workspace(rel, self.host.workspace)
            mtime_ns = path.stat().st_mtime_ns
            content = path.read_text(encoding="utf-8")
        except (ToolError, ValueError, OSError):
            return None
        self.scope.tool_context.read_files[path] = mtime_ns
        return content

    async def _rewritten(self, rel: str, content: str, region: step_edits.Region | None,
                         asked: str | None = None, resample: bool = True
                         ) -> tuple[str | None, str | None]:
        """The file (or region) written whole by the model with the change: (new text,
        None), or (None, why not). ``asked``: the task's sentence that asks for it;
        ``resample``: an unchanged reply is asked for again, sampled."""
        # The task's list goes with the file it names: shown it for README.md, the 1.5B
        # model wrote the list into the README.
        listed = step_context.task_parts(self.task) if Path(rel).name in self.task else []
        failing = (step_targets.failed_assertions(self._failure) or step_context.parse_error_place(
            self.host.workspace, self._failure, self._named)) if self._failure else ""
        request = step_edits.rewrite_request(rel, content, region, listed or
                                             ([asked] if asked else []), failing)
        for temperature in (None, RESAMPLE_TEMPERATURE) if resample else (None,):
            # Greedy, the 1.5B model often copies the file unchanged; sampled once more, it
            # makes a change (while there is time: each call takes 10-40 s on two cores).
            if temperature is not None and self._over_time():
                break
            self._rewrite = replace(request, temperature=temperature)
            response = await self._call_aside()
            try:
                return step_edits.rewritten(response.text, region.text if region else content,
                                            response.finish_reason == "length"), None
            except step_edits.Unchanged as exc:
                problem = exc
            except step_edits.NotLocated as exc:
                problem = exc
                break
        what = f"lines {region.start}-{region.end} of {rel}" if region else rel
        problem = f"Writing {what} whole failed: {problem}."
        self.emit(ev.Notice(text=f"small-model steps: {problem}"))
        return None, problem

