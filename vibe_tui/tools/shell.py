"""The ``bash`` tool: one shell command in the workspace, bounded in time and in output.

Each command runs as ``bash -c`` in its own process group, so a timeout or an interrupt
can kill everything it started (background jobs included), not just the shell. Output
is read as it streams and only a head and a tail are kept, so a command that prints
gigabytes costs no more memory than the caps.

Where bubblewrap works, ``bash -c`` runs inside the sandbox (``vibe_tui.tools.sandbox``);
where it does not, the command is refused unless the user allowed the host. ``cd DIR``
alone never reaches bash: it moves ``ctx.cwd``, which the next command starts in.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Awaitable, Callable
from typing import Any

from vibe_tui.policy.shell.analysis import analyse_command
from vibe_tui.tools import git_dirs, sandbox
from vibe_tui.tools.environment import command_env, read_only_env
from vibe_tui.policy.types import ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput, optional, require_command
from vibe_tui.config.paths import data_dir
from vibe_tui.tools.paths import display_path, resolve_in_workspace
from vibe_tui.tools.processes import terminate_group

STDOUT_CAP = 64 * 1024
STDERR_CAP = 16 * 1024
READ_CHUNK = 64 * 1024
# SIGTERM first so programs can clean up; SIGKILL whatever is still there after this.
KILL_GRACE_S = 1.0
# After the shell exits, how long background children may keep our pipes open before we
# decide they are lingering (e.g. ``server &``) and stop them.
DRAIN_GRACE_S = 0.5

# Non-interactive defaults: no pagers waiting for a key, no colour codes, no git prompts
# for credentials (stdin is closed, so a prompt would only fail later and more obscurely).

# Characters bash would expand in a ``cd`` argument; we do not emulate expansion.
_EXPANSION = re.compile(r"[$`*?\[]")


class HeadTail:
    """Keeps the first and last ``cap / 2`` bytes of a stream and counts what falls
    between, so memory stays bounded however much a command prints."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - self.tail_cap
            if excess > 0:
                del self.tail[:excess]

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        if not self.dropped:
            # Decoded as one piece so a character split across head and tail survives.
            return bytes(self.head + self.tail).decode("utf-8", errors="replace")
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        return f"{head}\n[... {self.dropped} bytes cut ...]\n{tail}"


@dataclass
class CommandResult:
    stdout: HeadTail
    stderr: HeadTail
    returncode: int
    timed_out: bool = False
    lingering: bool = False  # background children held the pipes after the shell exited
    quarantined: str | None = None  # git folders the command created, moved out (why)


async def _pump(stream: asyncio.StreamReader, sink: HeadTail) -> None:
    while chunk := await stream.read(READ_CHUNK):
        sink.feed(chunk)


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes | None) -> None:
    """Write ``data`` and close: a program that exits without reading it is no error."""
    if stdin is None or data is None:
        return
    try:
        stdin.write(data)
        await stdin.drain()
        stdin.close()
    except (BrokenPipeError, ConnectionResetError):
        pass


async def _drained(pumps: asyncio.Future, grace_s: float) -> bool:
    """Wait up to ``grace_s`` for both pipes to reach EOF; shielded so a timeout here
    does not cancel the readers."""
    try:
        await asyncio.wait_for(asyncio.shield(pumps), grace_s)
    except TimeoutError:
        return False
    return True


async def _shell_exit(proc: asyncio.subprocess.Process, pumps: asyncio.Future) -> None:
    """Wait for the shell itself to exit. ``Process.wait()`` also waits for the pipes to
    close, which a background child (``server &``) may hold open forever, so poll the
    return code instead; once both pipes are closed, ``wait()`` is exact."""
    while proc.returncode is None and not pumps.done():
        await asyncio.wait([pumps], timeout=0.02)
    if proc.returncode is None:
        await proc.wait()


@dataclass
class Started:
    """A running command: its process (group leader), and the sandbox it runs in."""

    proc: asyncio.subprocess.Process
    sandboxed: sandbox.Sandboxed | None = None

    async def stop(self) -> None:
        """Everything it started, gone: the group (SIGTERM, then SIGKILL), then the
        sandbox's init, which takes every process inside with it."""
        await terminate_group(self.proc.pid, KILL_GRACE_S)
        if self.sandboxed is not None:
            self.sandboxed.kill()


def system_bash() -> str:
    """bash from the system's folders, never a ``bash`` a workspace put on PATH."""
    return shutil.which("bash", path=os.defpath) or "/bin/bash"


def env_for(command: str, ctx: ToolContext, env: dict[str, str]) -> dict[str, str]:
    """A command the policy would let run without asking gets the stricter environment
    (``environment.read_only_env``): its programs are the system's, git is hardened."""
    if analyse_command(command).read_only:
        return read_only_env(env, ctx.workspace)
    return env


async def before_command(ctx: ToolContext) -> None:
    """Find the workspace's git folders as they are now, so the sandbox mounts each one
    read-only; a first look walks the whole workspace, later ones what changed."""
    if ctx.git_dirs is None:
        ctx.git_dirs = git_dirs.GitDirs(ctx.workspace)
    await asyncio.to_thread(ctx.git_dirs.refresh)


async def after_command(ctx: ToolContext) -> str | None:
    """Move out of the workspace any git folder the command created (git_dirs says why);
    what to tell the model and the user, or None."""
    if ctx.git_dirs is None:
        return None
    created = await asyncio.to_thread(ctx.git_dirs.refresh)
    if not created:
        return None
    into = ctx.quarantine_dir or data_dir() / "quarantine"
    moved = await asyncio.to_thread(git_dirs.quarantine, created, ctx.workspace, into)
    await asyncio.to_thread(ctx.git_dirs.refresh)
    return git_dirs.describe_quarantine(moved) if moved else None


@dataclass(frozen=True)
class CommandSetup:
    """What a command gets beyond the session's defaults: a folder other than ``ctx.cwd``,
    more variables, bytes on its stdin (a hook reads its event there)."""

    cwd: Path | None = None
    env: dict[str, str] | None = None
    stdin: bytes | None = None


async def start_command(command: str, ctx: ToolContext,
                        setup: CommandSetup = CommandSetup()) -> Started:
    """``bash -c COMMAND`` in ``ctx.cwd``, inside the sandbox when it is in force; a
    ToolError (for the model and the user) when the sandbox cannot start and the user
    has not allowed the host."""
    cwd = setup.cwd or ctx.cwd
    assert cwd is not None
    state = await sandbox.in_force_async(ctx)
    argv = [system_bash(), "-c", command]
    if state.kind == "unavailable":
        raise ToolError(sandbox.refusal(state))
    env = env_for(command, ctx, {**command_env(ctx), **(setup.env or {})})
    piped = setup.stdin is not None
    if state.kind != "bubblewrap":
        return Started(await _spawn(argv, cwd, env, piped=piped))
    await before_command(ctx)
    starting = asyncio.ensure_future(start_in_sandbox(
        argv, ctx, lambda wrapped, fds: _spawn(wrapped, cwd, env, fds, piped=piped)))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Interrupted while bubblewrap starts (milliseconds): let it finish, then stop it.
        # Killed halfway, it can leave its init behind before --die-with-parent is armed.
        await asyncio.shield(stop_once_started(starting))
        raise


async def start_in_sandbox(
    argv: list[str], ctx: ToolContext,
    spawn: Callable[[list[str], tuple[int, ...]], Awaitable[asyncio.subprocess.Process]],
) -> Started:
    """``argv`` under bubblewrap, started by ``spawn(wrapped_argv, pass_fds)``; bubblewrap
    reports its sandbox's init through an info pipe, so stopping reaches everything."""
    info_read, info_write = os.pipe()
    try:
        wrapped = sandbox.wrap(argv, ctx, network=ctx.sandbox_network, info_fd=info_write)
        process = await spawn(wrapped, (info_write,))
    except BaseException:
        os.close(info_read)
        raise
    finally:
        os.close(info_write)  # bubblewrap holds the only write end now: its EOF is ours
    return Started(process, await sandbox.started(info_read))


async def stop_once_started(starting: asyncio.Future[Started]) -> None:
    try:
        started = await starting
    except Exception:
        return  # it never started: nothing runs
    await started.stop()


async def _spawn(argv: list[str], cwd: Path, env: dict[str, str],
                 pass_fds: tuple[int, ...] = (), *,
                 piped: bool = False) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.PIPE if piped else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            start_new_session=True,  # own process group: killpg reaches every child
            pass_fds=pass_fds,
        )
    except FileNotFoundError as exc:
        if not cwd.is_dir():
            raise ToolError(f"the current directory {cwd} no longer exists; cd elsewhere") from exc
        raise ToolError(f"could not start bash: {exc}") from exc
    except OSError as exc:
        raise ToolError(f"could not start bash: {exc}") from exc


async def run_command(command: str, ctx: ToolContext, timeout_s: float,
                      setup: CommandSetup = CommandSetup()) -> CommandResult:
    """Run ``command`` with ``bash -c`` in ``ctx.cwd``; kill its group on timeout or when
    the caller is cancelled (the user interrupted)."""
    started = await start_command(command, ctx, setup)
    proc = started.proc
    ctx.running_pids.add(proc.pid)
    result = CommandResult(HeadTail(STDOUT_CAP), HeadTail(STDERR_CAP), returncode=0)
    pumps = asyncio.gather(_pump(proc.stdout, result.stdout), _pump(proc.stderr, result.stderr),
                           _feed(proc.stdin, setup.stdin))
    try:
        try:
            await asyncio.wait_for(_shell_exit(proc, pumps), timeout_s)
        except TimeoutError:
            result.timed_out = True
            await started.stop()
            await _shell_exit(proc, pumps)  # SIGKILLed at worst: gone within moments
        if not await _drained(pumps, DRAIN_GRACE_S):
            result.lingering = not result.timed_out
            await started.stop()
            await _drained(pumps, DRAIN_GRACE_S)
        assert proc.returncode is not None
        result.returncode = proc.returncode
    except asyncio.CancelledError:
        # Shielded: a second cancellation must not leave the group half-killed.
        await asyncio.shield(started.stop())
        raise
    finally:
        pumps.cancel()  # a process that escaped the group may still hold a pipe
        ctx.running_pids.discard(proc.pid)
        if started.sandboxed is not None:
            result.quarantined = await asyncio.shield(after_command(ctx))
    return result


def parse_cd(command: str) -> str | None:
    """The directory of a command that is only ``cd [DIR]`` ("" for bare ``cd``), or None
    when the command is anything else (``cd a && make`` runs in a shell as usual)."""
    try:
        lexer = shlex.shlex(command.strip(), posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: let bash report it
        return None
    if not tokens or tokens[0] != "cd" or len(tokens) > 2:
        return None
    return tokens[1] if len(tokens) == 2 else ""


def change_directory(target: str, ctx: ToolContext) -> ToolOutput:
    if _EXPANSION.search(target):
        raise ToolError("cd takes a literal directory (no variables, globs or substitutions)")
    if target == "":
        new_cwd = ctx.workspace  # bare cd: home is the workspace root
    else:
        new_cwd = resolve_in_workspace(target, ctx.workspace, ctx.cwd)
    if not new_cwd.exists():
        raise ToolError(f"cd: no such directory: {target}")
    if not new_cwd.is_dir():
        raise ToolError(f"cd: not a directory: {target}")
    ctx.cwd = new_cwd
    rel = display_path(new_cwd, ctx.workspace)
    return ToolOutput(f"cwd is now {rel}", ok=True, exit_code=0, meta={"cwd": rel})


def _requested_timeout(args: dict[str, Any]) -> float | None:
    if isinstance(args.get("timeout_s"), bool):
        raise ToolError("argument 'timeout_s' must be a number of seconds")
    value = optional(args, "timeout_s", float, None)
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise ToolError("argument 'timeout_s' must be a positive number of seconds")
    return value


def _render(result: CommandResult, notes: list[str]) -> str:
    parts = []
    out, err = result.stdout.text(), result.stderr.text()
    if out:
        parts.append(out.rstrip("\n"))
    if err:
        parts.append("stderr:\n" + err.rstrip("\n"))
    if not out and not err:
        parts.append("(no output)")
    parts.extend(notes)
    parts.append(f"exit code: {result.returncode}")
    return "\n".join(parts)


class BashTool:
    name = "bash"
    kind = "exec"
    description = (
        "Run a bash command (bash -c) in the current directory of the workspace. "
        "stdin is closed, so interactive prompts fail; CI=1, PAGER=cat, TERM=dumb are set. "
        "Timeout: 30 s by default, timeout_s up to 120; on timeout the command and all its "
        "children are killed. Output is capped at 64 KiB of stdout and 16 KiB of stderr "
        "(head and tail kept). A command that is only `cd DIR` changes the directory for "
        "later commands (inside the workspace). To read or search files use read_file, "
        "grep and list_dir instead of cat, grep or find. Use it to run tests, scripts and "
        "builds, e.g. bash(command=\"python -m pytest -q\") or bash(command=\"node --test\")."
    )
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command to run."},
            "timeout_s": {
                "type": "number",
                "description": "Seconds before the command is killed (default 30, max 120).",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        command = require_command(args)
        _requested_timeout(args)
        return ToolRequest(tool=self.name, kind="exec", args=args, command=command, cwd=ctx.cwd)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        command = self.precheck(args, ctx).command
        assert command is not None
        target = parse_cd(command)
        if target is not None:
            return change_directory(target, ctx)
        requested = _requested_timeout(args)
        timeout = min(requested or ctx.bash_timeout_default_s, ctx.bash_timeout_max_s)
        notes = []
        if requested is not None and requested > ctx.bash_timeout_max_s:
            notes.append(f"timeout_s {requested:g} is above the maximum; clamped to {timeout:g} s")
        result = await run_command(command, ctx, timeout)
        if result.timed_out:
            notes.append(f"timed out after {timeout:g} s; the command and its children were killed")
        if result.quarantined:
            notes.append(result.quarantined)
        if result.lingering:
            notes.append(
                "background processes still held the output after the command exited and "
                "were killed; redirect their output (cmd > file 2>&1 &) to keep them running"
            )
        return ToolOutput(
            _render(result, notes),
            ok=result.returncode == 0 and not result.timed_out,
            exit_code=result.returncode,
            meta={
                "timed_out": result.timed_out,
                "quarantined": result.quarantined is not None,
                "timeout_s": timeout,
                "stdout_bytes": result.stdout.total,
                "stderr_bytes": result.stderr.total,
            },
        )


SHELL_TOOLS = [BashTool()]
