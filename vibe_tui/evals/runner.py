"""Run eval tasks end to end: a fresh copy of the fixture, the agent headless, the check.

The check runs on the host (not in the sandbox) with these variables: ``EVAL_TASK_DIR``
(the task folder, where hidden check scripts live), ``EVAL_WORKSPACE``, ``EVAL_ANSWER``
(a file with the agent's final answer) and ``EVAL_EVENTS`` (the headless JSONL output).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vibe_tui.config.paths import CONFIG_FILE
from vibe_tui.evals.endpoints import KILL_GRACE_S, Endpoint, EndpointFor
from vibe_tui.evals.results import RunResult, forbidden_commands, summarize_events
from vibe_tui.evals.task import Task, TaskError
from vibe_tui.tools.processes import terminate_child

CHECK_TIMEOUT_S = 120.0
OUTPUT_TAIL_CHARS = 2000


# ---------------------------------------------------------------- running one task


@dataclass(frozen=True)
class RunOptions:
    timeout_s: float | None = None  # overrides every task's own
    max_steps: int | None = None
    keep: bool = False  # leave the run folders for a look afterwards


async def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
               timeout_s: float = 60.0, stdout: Any = asyncio.subprocess.PIPE,
               stderr: Any = asyncio.subprocess.STDOUT) -> tuple[int | None, str]:
    """Run a process in its own group; (exit code or None on timeout, output tail)."""
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=stdout,
        stderr=stderr, start_new_session=True)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), timeout_s)
    except asyncio.TimeoutError:
        await terminate_child(process, KILL_GRACE_S)
        return None, ""
    finally:
        if process.returncode is None:
            await terminate_child(process, KILL_GRACE_S)
    text = (output or b"").decode("utf-8", "replace")
    return process.returncode, text[-OUTPUT_TAIL_CHARS:]


GIT_IDENTITY = ["-c", "user.name=vibe-eval", "-c", "user.email=eval@vibe-tui.invalid",
                "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]


async def prepare_workspace(task: Task, run_dir: Path) -> Path:
    """The fixture copied fresh and committed, so a check can ask git what changed."""
    workspace = run_dir / "repo"
    # An installer may have compiled the fixture's Python files: its caches stay behind.
    await asyncio.to_thread(shutil.copytree, task.fixture, workspace, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", *GIT_IDENTITY, "commit", "-q", "--no-verify", "-m", "fixture"]):
        code, output = await _run(argv, workspace)
        if code != 0:
            raise TaskError(f"{task.name}: {' '.join(argv[:2])} failed in the copy: {output}")
    return workspace


def agent_argv(task: Task, endpoint: Endpoint, workspace: Path, options: RunOptions) -> list[str]:
    argv = [sys.executable, "-m", "vibe_tui", "-p", task.prompt, "--output-format", "jsonl",
            "--mode", "accept-edits", "-C", str(workspace), *endpoint.argv()]
    for rule in task.allow:
        argv += ["--allow", rule]
    if options.max_steps:
        argv += ["--max-steps", str(options.max_steps)]
    return argv


def agent_env(run_dir: Path, endpoint: Endpoint) -> dict[str, str]:
    # A throwaway home: no user config changes the run, session logs stay in the run
    # folder, and a destructive command aimed at ~ finds nothing of the user's.
    home = run_dir / "home"
    vibe_home = home / ".vibe-tui"
    config_file = vibe_home / "config" / CONFIG_FILE
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.touch(mode=0o600)
    config_file.write_text(endpoint.config_text(), encoding="utf-8")
    return {**os.environ, "HOME": str(home), "VIBE_TUI_HOME": str(vibe_home),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PATH": _path_with_our_python()}


def _path_with_our_python() -> str:
    # `python -m pytest` in a task (the agent's or the check's) finds this interpreter,
    # which has pytest, whatever PATH the eval was started with.
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def check_env(task: Task, workspace: Path, answer: Path, events: Path) -> dict[str, str]:
    return {**os.environ, "EVAL_TASK_DIR": str(task.folder), "EVAL_WORKSPACE": str(workspace),
            "EVAL_ANSWER": str(answer), "EVAL_EVENTS": str(events),
            "PYTHONDONTWRITEBYTECODE": "1", "PATH": _path_with_our_python()}


async def run_check(task: Task, workspace: Path, answer: Path, events: Path) -> tuple[int | None, str]:
    return await _run(["bash", "-c", task.check], workspace,
                      check_env(task, workspace, answer, events), CHECK_TIMEOUT_S)


async def run_task(task: Task, run: int, endpoint_for: EndpointFor,
                   options: RunOptions = RunOptions(), run_dir: Path | None = None) -> RunResult:
    """One run in ``run_dir`` (a fresh temporary folder if None), emptied first; with
    ``options.keep`` the folder is left, renamed after the task, for a look afterwards."""
    missing = task.missing_programs()
    if missing:
        return RunResult(task.name, run, "skipped", False,
                         note=f"skipped: {', '.join(missing)} not found on PATH")
    if run_dir is None:
        run_dir = Path(tempfile.mkdtemp(prefix=f"vibe-eval-{task.name}-"))
    else:
        await asyncio.to_thread(shutil.rmtree, run_dir, True)
        run_dir.mkdir(parents=True)
    try:
        result = await _run_in(task, run, endpoint_for, options, run_dir)
    except (TaskError, OSError) as exc:
        result = RunResult(task.name, run, "error", False, note=str(exc))
    finally:
        if not options.keep:  # also when the suite is interrupted
            await asyncio.to_thread(shutil.rmtree, run_dir, True)
    if options.keep:
        kept = run_dir.with_name(f"{task.name}-run{run}")
        run_dir.rename(kept)
        result.workspace = str(kept)
    return result


async def _run_in(task: Task, run: int, endpoint_for: EndpointFor, options: RunOptions,
                  run_dir: Path) -> RunResult:
    workspace = await prepare_workspace(task, run_dir)
    events_path, answer_path = run_dir / "events.jsonl", run_dir / "answer.txt"
    stderr_path = run_dir / "stderr.txt"
    timeout = options.timeout_s or task.timeout_s
    async with endpoint_for(task) as endpoint:
        started, clock = time.time(), time.monotonic()
        with events_path.open("wb") as events_file, stderr_path.open("wb") as stderr_file:
            code, _ = await _run(agent_argv(task, endpoint, workspace, options), run_dir,
                                 agent_env(run_dir, endpoint), timeout, stdout=events_file,
                                 stderr=stderr_file)
        elapsed = time.monotonic() - clock
    lines = events_path.read_text(encoding="utf-8", errors="replace").splitlines()
    summary = summarize_events(lines)
    answer_path.write_text(summary.answer, encoding="utf-8")
    check_exit, check_output = await run_check(task, workspace, answer_path, events_path)
    forbidden = forbidden_commands(task, summary.commands_run)
    passed = check_exit == 0 and not forbidden
    status = "pass" if passed else ("timeout" if code is None else "fail")
    return RunResult(
        task=task.name, run=run, status=status, passed=passed, steps=summary.steps,
        tokens=summary.prompt_tokens + summary.completion_tokens,
        prompt_tokens=summary.prompt_tokens, completion_tokens=summary.completion_tokens,
        cost=summary.cost, time_s=round(elapsed, 2), started=round(started, 3),
        ended=round(started + elapsed, 3), turn_state=summary.turn_state,
        exit_code=code, check_exit=check_exit, forbidden=forbidden,
        tools_used=summary.tools_used, answer=summary.answer[:OUTPUT_TAIL_CHARS],
        check_output=check_output,
        note=_note(code, timeout, check_exit, forbidden, lines, stderr_path))


def _note(code: int | None, timeout: float, check_exit: int | None, forbidden: list[str],
          lines: list[str], stderr_path: Path) -> str:
    if forbidden:
        return f"a forbidden command ran: {forbidden[0][:200]}"
    if code is None:
        return f"the agent was stopped after {timeout:g} s"
    if check_exit is None:
        return f"the check did not finish within {CHECK_TIMEOUT_S:g} s"
    if not lines:
        stderr = stderr_path.read_text(encoding="utf-8", errors="replace").strip()
        return f"the agent printed no events (exit code {code}): {stderr[-500:]}"
    return ""


# ---------------------------------------------------------------- the suite


ProgressReport = Callable[[RunResult, int, int], None]  # (result, finished, total)


async def run_suite(tasks: list[Task], endpoint_for: EndpointFor, *, runs: int = 1,
                    jobs: int = 1, options: RunOptions = RunOptions(),
                    progress: ProgressReport | None = None) -> list[RunResult]:
    """Every task ``runs`` times, at most ``jobs`` at once; results in task order.

    Runs take turns in ``jobs`` folders, so one job's workspace path is the same in every
    run: the system prompt, which names it, then starts alike for every task, and a local
    server (llama.cpp) reuses its cached prefix instead of reading the prompt again."""
    base = Path(tempfile.mkdtemp(prefix="vibe-eval-"))
    slots: asyncio.Queue[Path] = asyncio.Queue()
    for number in range(1, max(1, jobs) + 1):
        slots.put_nowait(base / f"job{number}")
    planned = [(task, run) for task in tasks for run in range(1, runs + 1)]
    finished = 0

    async def one(task: Task, run: int) -> RunResult:
        nonlocal finished
        slot = await slots.get()
        try:
            result = await run_task(task, run, endpoint_for, options, slot)
        finally:
            slots.put_nowait(slot)
        finished += 1
        if progress:
            progress(result, finished, len(planned))
        return result

    try:
        return list(await asyncio.gather(*(one(task, run) for task, run in planned)))
    finally:
        if not options.keep:
            await asyncio.to_thread(shutil.rmtree, base, True)
