"""Run eval tasks end to end: a fresh copy of the fixture, the agent headless, the check.

A task is a folder ``evals/tasks/<name>/`` holding ``task.toml`` and the fixture
repository ``repo/``; ``script.json`` (optional) is a model script in the fake model
server's format that solves the task, so CI can prove fixture, check and runner without a
real model. ``task.toml``::

    prompt = "Fix the failing test."
    allow = ["Bash(python -m pytest:*)"]        # rules that run without asking
    check = 'python "$EVAL_TASK_DIR/check.py"'  # bash, in the workspace; exit 0 = pass
    forbid = ['rm\\s+-rf\\s+data']               # regexes: a command that ran and matches fails the task
    requires = ["node"]                          # programs the task needs; skipped without them
    timeout = 600                                # seconds for the agent
    measures = "one line for the report"

The check runs on the host (not in the sandbox) with these variables: ``EVAL_TASK_DIR``
(the task folder, where hidden check scripts live), ``EVAL_WORKSPACE``, ``EVAL_ANSWER``
(a file with the agent's final answer) and ``EVAL_EVENTS`` (the headless JSONL output).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import tomllib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vibe_tui.config.paths import CONFIG_FILE
from vibe_tui.config.toml_edit import toml_string

TASKS_DIR = Path(__file__).resolve().parents[2] / "evals" / "tasks"
DEFAULT_TIMEOUT_S = 600.0
CHECK_TIMEOUT_S = 120.0
KILL_GRACE_S = 5.0
OUTPUT_TAIL_CHARS = 2000
# Tools whose arguments are shell commands the agent ran (forbid markers look at these).
COMMAND_ARGUMENT = {"bash": "command", "interactive_start": "command",
                    "interactive_send": "input"}
FAKE_MODEL = "openai/fake-model"
TASK_KEYS = {"prompt", "allow", "check", "forbid", "requires", "timeout", "measures"}


class TaskError(Exception):
    """A task folder or its task.toml is unusable; the message names the file."""


@dataclass(frozen=True)
class Task:
    name: str
    folder: Path
    prompt: str
    check: str
    allow: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    timeout_s: float = DEFAULT_TIMEOUT_S
    measures: str = ""

    @property
    def fixture(self) -> Path:
        return self.folder / "repo"

    @property
    def script(self) -> Path:
        return self.folder / "script.json"

    def missing_programs(self) -> list[str]:
        return [program for program in self.requires if shutil.which(program) is None]


def _strings(data: dict[str, Any], key: str, where: Path) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TaskError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _text(data: dict[str, Any], key: str, where: Path, *, required: bool) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise TaskError(f"{where}: '{key}' must be a non-empty string")
    return value


def load_task(folder: Path) -> Task:
    where = folder / "task.toml"
    try:
        data = tomllib.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TaskError(f"{where}: {exc}") from None
    unknown = set(data) - TASK_KEYS
    if unknown:
        raise TaskError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    if not (folder / "repo").is_dir():
        raise TaskError(f"{folder}: no fixture folder 'repo/'")
    forbid = _strings(data, "forbid", where)
    for pattern in forbid:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise TaskError(f"{where}: forbid pattern {pattern!r}: {exc}") from None
    timeout = data.get("timeout", DEFAULT_TIMEOUT_S)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise TaskError(f"{where}: 'timeout' must be a positive number of seconds")
    return Task(
        name=folder.name, folder=folder.resolve(),
        prompt=_text(data, "prompt", where, required=True),
        check=_text(data, "check", where, required=True),
        allow=_strings(data, "allow", where), forbid=forbid,
        requires=_strings(data, "requires", where), timeout_s=float(timeout),
        measures=_text(data, "measures", where, required=False),
    )


def find_tasks(root: Path = TASKS_DIR, patterns: str = "*") -> list[Task]:
    """Tasks whose folder name matches one of the comma-separated glob ``patterns``."""
    if not root.is_dir():
        raise TaskError(f"no task folder at {root} (the tasks ship with the source tree)")
    globs = [p.strip() for p in patterns.split(",") if p.strip()] or ["*"]
    folders = sorted(p for p in root.iterdir()
                     if (p / "task.toml").is_file()
                     and any(fnmatch.fnmatchcase(p.name, g) for g in globs))
    if not folders:
        raise TaskError(f"no task in {root} matches {patterns!r}")
    return [load_task(folder) for folder in folders]


# ---------------------------------------------------------------- models


@dataclass(frozen=True)
class Endpoint:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    settings: tuple[tuple[str, bool | int | float | str], ...] = ()
    """Further config keys for the agent, e.g. the embedded model's ``temperature`` and
    ``local_model``, so a run sees the model configured as the app configures it."""

    def argv(self) -> list[str]:
        args = ["--model", self.model]
        if self.api_base:
            args += ["--api-base", self.api_base]
        return args

    def config_text(self) -> str:
        """The agent's ``config.toml``: the key lives here, not on the command line,
        where any local user's ``ps`` could read it."""
        values = dict(self.settings)
        if self.api_key:
            values["api_key"] = self.api_key
        return "".join(f"{key} = {_toml_value(value)}\n" for key, value in values.items())


def _toml_value(value: bool | int | float | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return toml_string(value)


# Given a task, an async context that yields the model endpoint its run talks to.
EndpointFor = Callable[[Task], AbstractAsyncContextManager[Endpoint]]


def fixed_endpoint(endpoint: Endpoint) -> EndpointFor:
    @contextlib.asynccontextmanager
    async def same(task: Task) -> AsyncIterator[Endpoint]:
        yield endpoint

    return same


@contextlib.asynccontextmanager
async def scripted_endpoint(task: Task) -> AsyncIterator[Endpoint]:
    """A fresh fake model server playing the task's ``script.json``, for this run only."""
    if not task.script.is_file():
        raise TaskError(f"{task.folder}: no script.json for a scripted run")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "vibe_tui.testing.fake_llm", "--port", "0",
        "--script", str(task.script),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True)
    try:
        try:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
        except asyncio.TimeoutError:
            raise TaskError(f"{task.script}: the fake model did not start in 60 s") from None
        if not line.startswith(b"READY "):
            error = (await process.stderr.read()).decode("utf-8", "replace").strip()
            raise TaskError(f"{task.script}: the fake model did not start: {error[-500:]}")
        yield Endpoint(FAKE_MODEL, line.split()[1].decode(), "sk-fake")
    finally:
        await _stop_group(process)


async def _stop_group(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    _signal_group(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE_S)
    except asyncio.TimeoutError:
        _signal_group(process.pid, signal.SIGKILL)
        await process.wait()


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


# ---------------------------------------------------------------- what a run produced


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
        await _stop_group(process)
        return None, ""
    finally:
        if process.returncode is None:
            await _stop_group(process)
    text = (output or b"").decode("utf-8", "replace")
    return process.returncode, text[-OUTPUT_TAIL_CHARS:]


GIT_IDENTITY = ["-c", "user.name=vibe-eval", "-c", "user.email=eval@vibe-tui.invalid",
                "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"]


async def prepare_workspace(task: Task, run_dir: Path) -> Path:
    """The fixture copied fresh and committed, so a check can ask git what changed."""
    workspace = run_dir / "repo"
    await asyncio.to_thread(shutil.copytree, task.fixture, workspace, symlinks=True)
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
