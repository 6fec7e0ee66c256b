"""A program in a pseudo-terminal, rendered by a terminal emulator (``pyte``).

``PtySession`` is the terminal: a real pseudo-terminal whose output ``pyte`` renders, so
whoever reads it (the model through ``vibe_tui.tools.interactive``, the user through the
TUI's terminal view) sees the screen a person would: a REPL prompt, a debugger's
listing, a curses form. The program is the leader of its own session with the terminal
as its controlling terminal (``setsid --ctty``), so ``<ctrl-c>`` interrupts it as in a
real terminal, and when vibe-tui goes away the terminal hangs up and takes it along.

Starting and stopping work as for ``bash`` (``vibe_tui.tools.shell``): inside the sandbox
where it is in force, refused where it cannot start and the user has not allowed the
host; stopping kills the program's process group by its pid, then the sandbox's init,
which takes every process inside with it.

Sessions live in ``ToolContext.interactive``, by id; ``close_all`` ends them with the
agent session.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import re
import shutil
import struct
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pyte

from vibe_tui.tools import sandbox
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.environment import interactive_env, read_only_env
from vibe_tui.tools.terminal import DECCKM, TerminalScreen, render_line
from vibe_tui.tools.shell import (
    Started,
    before_command,
    env_for,
    start_in_sandbox,
    stop_once_started,
    system_bash,
)

log = logging.getLogger(__name__)

IDLE_LIMIT_S = 600.0  # read when a session is armed, so tests may lower it
SCROLLBACK_SHOWN = 100  # at most this many scrolled-off lines in one read
KEEP_CLOSED = 16  # closed sessions remembered, so a late send gets a precise answer
# Waiting: the screen is read once output has paused this long ...
SETTLE_S = 0.3
# ... or, when the program says nothing at all, after this long ...
FIRST_OUTPUT_S = 1.0
# ... and never later than this (wait_ms is capped to it too).
WAIT_CAP_S = 10.0
EXIT_DRAIN_S = 0.3  # after the program exits, how long to wait for its last output
WRITE_TIMEOUT_S = 2.0  # a program that reads no input does not block a call forever
# pyte is slow at scrolling text (bench/README.md, "Figures behind constants"), so
# output is fed in small pieces to keep each stop of the event loop short ...
READ_CHUNK = 1024
# ... and a program that floods output would still hold the loop: when a piece took
# longer than this, reading pauses as long again (the program blocks meanwhile).
FEED_PAUSE_AFTER_S = 0.005

State = Literal["running", "exited", "closed"]

# Programs whose input lines are shell commands. Matched against every word of the
# start command (``docker exec -it c bash``, ``env FOO=1 zsh``, ``/bin/sh``).
SHELL_PROGRAMS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "csh", "tcsh", "fish", "ash", "busybox",
    "nu", "xonsh", "elvish", "pwsh", "ssh", "su", "sudo", "doas", "login", "tmux",
    "screen", "script", "shell",
})


def runs_a_shell(command: str) -> bool:
    """Whether input typed into ``command`` reaches a shell. Generous on purpose: a
    false "yes" costs a question, a false "no" runs lines unchecked."""
    for word in re.split(r"[^\w./+-]+", command):
        name = word.rsplit("/", 1)[-1]
        if name in SHELL_PROGRAMS or name.endswith("-shell"):
            return True
    return False


class PtySession:
    """One program in a pseudo-terminal. Views may watch it (``add_listener``, ``lines``,
    ``cursor``) and type into it (``type_raw``); the tools drive it through ``write`` and
    ``settle``."""

    def __init__(self, session_id: str, command: str, cols: int, rows: int,
                 started: Started, master: int, registry: dict[str, Any]) -> None:
        self.id = session_id
        self.command = command
        self.cols, self.rows = cols, rows
        self.process = started.proc  # leads the program's process group
        self._started = started
        self.shell = runs_a_shell(command)
        self.state: State = "running"
        self.exit_code: int | None = None
        self.closed_reason: str | None = None
        self.final_lines: list[str] = []  # the screen when it closed
        self.pending_line = ""  # shell sessions: text the model typed since its last Enter
        self.lock = asyncio.Lock()  # one call at a time talks to the program
        self.screen = TerminalScreen(cols, rows, self._reply)
        self._stream = pyte.ByteStream(self.screen)
        self._master = master
        self._registry = registry
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        self._listeners: list[Callable[[PtySession], None]] = []
        self._eof = False
        self._output_count = 0
        self.last_output = self._loop.time()
        self._exited_at: float | None = None
        self._read_mark = 0  # screen.scrolled at the last read
        self._resume: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._closing: asyncio.Task | None = None  # held so the idle close is not collected
        self._loop.add_reader(master, self._on_readable)
        self._waiter = self._loop.create_task(self._wait_exit(), name=f"pty-{session_id}-exit")

    # ---- output ---------------------------------------------------------------------

    def _on_readable(self) -> None:
        try:
            data = os.read(self._master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # EIO: every process has closed the terminal
            data = b""
        if not data:
            self._eof = True
            self._stop_reading()
            self._notify()
            return
        started = time.perf_counter()
        try:
            self._stream.feed(data)
        except Exception:  # an emulator bug must not kill the session
            log.exception("pyte failed on output of %s", self.id)
        spent = time.perf_counter() - started
        self._output_count += 1
        self.last_output = self._loop.time()
        self._notify()
        if spent > FEED_PAUSE_AFTER_S:
            # The program blocks on the full terminal meanwhile: backpressure, not loss.
            self._loop.remove_reader(self._master)
            self._resume = self._loop.call_later(spent, self._resume_reading)

    def _resume_reading(self) -> None:
        self._resume = None
        if self.state != "closed" and not self._eof:
            self._loop.add_reader(self._master, self._on_readable)

    def _stop_reading(self) -> None:
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        if self._master >= 0:
            self._loop.remove_reader(self._master)

    def _reply(self, data: str) -> None:
        """The emulator answers the program's terminal queries."""
        if self.state == "running":
            try:
                os.write(self._master, data.encode())
            except OSError:
                pass

    async def _wait_exit(self) -> None:
        code = await self.process.wait()
        self.exit_code = code
        self._exited_at = self._loop.time()
        if self.state == "running":
            self.state = "exited"
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        for listener in list(self._listeners):
            try:
                listener(self)
            except Exception:
                log.exception("a listener of %s failed", self.id)

    # ---- views ----------------------------------------------------------------------

    def add_listener(self, listener: Callable[[PtySession], None]) -> None:
        """Called on the event loop after each piece of output, exit and close."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[PtySession], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    @property
    def lines(self) -> list[str]:
        """The screen as text lines (trailing blank lines dropped)."""
        return self.final_lines if self.state == "closed" else self.screen.text_lines()

    @property
    def cursor(self) -> tuple[int, int] | None:
        """(row, column), 1-based; None when the program hides the cursor."""
        if self.state == "closed" or self.screen.cursor.hidden:
            return None
        return self.screen.cursor.y + 1, self.screen.cursor.x + 1

    async def type_raw(self, data: bytes) -> None:
        """Keys the user typed into the terminal view. They are the user's own: they do
        not go through the policy, and a shell line the model left unfinished stays
        checked as the model typed it."""
        self.arm_idle()
        await self.write(data)

    # ---- input ----------------------------------------------------------------------

    def current_dir(self) -> Path | None:
        """Where the terminal's foreground program is (a shell may have cd'ed anywhere),
        for the policy to resolve the paths of a typed command; None when unknown."""
        if self.state != "running":
            return None
        try:
            return Path(os.readlink(f"/proc/{os.tcgetpgrp(self._master)}/cwd"))
        except OSError:
            return None

    @property
    def app_cursor(self) -> bool:
        return DECCKM in self.screen.mode

    async def write(self, data: bytes) -> int:
        """Write ``data`` to the program; the number of bytes it did not take in time."""
        view = memoryview(data)
        loop, fd = self._loop, self._master
        deadline = loop.time() + WRITE_TIMEOUT_S
        while view and self.state == "running":
            try:
                view = view[os.write(fd, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                break
            writable = loop.create_future()
            loop.add_writer(fd, writable.set_result, None)
            try:
                await asyncio.wait_for(writable, max(0.0, deadline - loop.time()))
            except TimeoutError:
                break
            finally:
                if self.state != "closed":
                    loop.remove_writer(fd)
        return len(view)

    async def settle(self, min_wait_s: float = 0.0) -> bool:
        """Wait for the program to react to what was sent: until its output pauses for
        ``SETTLE_S`` (no earlier than ``min_wait_s``), it exits, or ``WAIT_CAP_S``
        passes. True when output was still arriving at the cap."""
        loop = self._loop
        start = loop.time()
        seen = self._output_count
        cap = start + WAIT_CAP_S
        while True:
            now = loop.time()
            if self.state == "closed":
                return False
            if self._exited_at is not None:
                drained_at = self._exited_at + EXIT_DRAIN_S
                if self._eof or now >= drained_at:
                    return False
            else:
                drained_at = cap
            if now >= cap:
                return now - self.last_output < SETTLE_S
            if self._output_count != seen:
                ready = max(start + min_wait_s, self.last_output + SETTLE_S)
            else:
                ready = start + max(min_wait_s, FIRST_OUTPUT_S)
            if now >= ready:
                return False
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(ready, cap, drained_at) - now)
            except TimeoutError:
                pass

    # ---- lifetime -------------------------------------------------------------------

    def hold_idle(self) -> None:
        """A call is using the session: the idle clock stops."""
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def arm_idle(self) -> None:
        """Start (or restart) the idle clock."""
        self.hold_idle()
        if self.state != "closed":
            self._idle = self._loop.call_later(IDLE_LIMIT_S, self._on_idle)

    def _on_idle(self) -> None:
        self._idle = None
        minutes = IDLE_LIMIT_S / 60
        reason = f"closed after {minutes:g} minutes without input"
        self._closing = self._loop.create_task(self.close(reason), name=f"pty-{self.id}-idle")

    def take_scrolled(self) -> tuple[list[str], int]:
        """Lines that scrolled off the top since the last read: (kept, total)."""
        total = self.screen.scrolled - self._read_mark
        self._read_mark = self.screen.scrolled
        if not total:
            return [], total
        rows = list(self.screen.scrollback)[-min(total, SCROLLBACK_SHOWN):]
        return [render_line(row, self.cols) for row in rows], total

    async def close(self, reason: str) -> None:
        """Stop the program and everything it started, and free the terminal."""
        if self.state == "closed":
            return
        self.final_lines = self.screen.text_lines()
        self.state = "closed"
        self.closed_reason = reason
        self.hold_idle()
        self._stop_reading()
        # Unregistered before the close: the number may belong to another file next.
        self._loop.remove_writer(self._master)
        # Closing the master hangs the terminal up: the kernel sends SIGHUP to the
        # program, which is how interactive shells (deaf to SIGTERM) expect to end.
        os.close(self._master)
        self._master = -1
        await asyncio.shield(self._stop_process())
        self._notify()
        _forget_old_closed(self._registry)

    async def _stop_process(self) -> None:
        # Also after the program exited: children it left in its group, or in the
        # sandbox, go with it.
        await self._started.stop()
        await self._waiter
        self.exit_code = self.process.returncode


def _forget_old_closed(registry: dict[str, Any]) -> None:
    closed = [sid for sid, s in registry.items() if s.state == "closed"]
    for sid in closed[:-KEEP_CLOSED]:
        del registry[sid]


# -- starting --------------------------------------------------------------------------


def _set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


async def open_session(command: str, ctx: ToolContext, cols: int, rows: int) -> PtySession:
    """Start ``command`` under ``bash -c`` in a new pseudo-terminal, in ``ctx.cwd``."""
    master, slave = os.openpty()
    try:
        _set_size(slave, cols, rows)
        os.set_blocking(master, False)
        starting = asyncio.ensure_future(_start(command, ctx, cols, rows, slave))
        try:
            started = await asyncio.shield(starting)
        except asyncio.CancelledError:
            # Interrupted while it starts: let it finish, then stop all of it, sandbox
            # included (killed halfway, bubblewrap can leave its init behind).
            await asyncio.shield(stop_once_started(starting))
            raise
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)  # the program holds it now; ours would hide its hang-up (EIO)
    session_id = _next_id(ctx.interactive)
    session = PtySession(session_id, command, cols, rows, started, master, ctx.interactive)
    ctx.interactive[session_id] = session
    return session


async def _start(command: str, ctx: ToolContext, cols: int, rows: int, slave: int) -> Started:
    """``command`` with the terminal ``slave`` as its controlling terminal. As for bash
    (shell.py): inside the sandbox where it is in force, refused where it cannot start
    and the user has not allowed the host; the process started leads its own process
    group, so stopping it by its pid reaches everything it started.

    ``setsid --ctty`` gives the program the terminal, so <ctrl-c> signals it. Outside the
    sandbox it runs as the child itself (not a group leader, so it does not fork): the
    program keeps the pid, which is its group's and its session's. Inside, bubblewrap's
    ``--new-session`` has just detached the program from every terminal, so setsid forks,
    takes the terminal in a new session, and waits (``--wait``) so the sandbox lives as
    long as the program; bubblewrap reports the sandbox's init, whose death ends every
    process inside."""
    state = await sandbox.in_force_async(ctx)
    if state.kind == "unavailable":
        raise ToolError(sandbox.refusal(state))
    argv = [system_bash(), "-c", command]
    setsid = shutil.which("setsid", path=os.defpath)
    env = interactive_env(ctx, cols, rows)
    # Lines typed into a shell are judged one by one like bash commands, and read-only
    # ones run unasked: the shell must be the place such a command runs in.
    env = read_only_env(env, ctx.workspace) if runs_a_shell(command) else \
        env_for(command, ctx, env)
    if state.kind != "bubblewrap":
        if setsid:
            return Started(await _spawn([setsid, "--ctty", *argv], ctx, env, slave, False))
        # Without setsid (not Linux): own session, no controlling terminal.
        return Started(await _spawn(argv, ctx, env, slave, True))
    inner = [setsid, "--ctty", "--wait", *argv] if setsid else argv
    await before_command(ctx)
    return await start_in_sandbox(
        inner, ctx, lambda wrapped, fds: _spawn(wrapped, ctx, env, slave, True, pass_fds=fds))


async def _spawn(argv: list[str], ctx: ToolContext, env: dict[str, str], slave: int,
                 new_session: bool, pass_fds: tuple[int, ...] = ()
                 ) -> asyncio.subprocess.Process:
    assert ctx.cwd is not None
    try:
        return await asyncio.create_subprocess_exec(
            *argv, cwd=ctx.cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
            start_new_session=new_session, pass_fds=pass_fds)
    except FileNotFoundError as exc:
        if not ctx.cwd.is_dir():
            raise ToolError(f"the current directory {ctx.cwd} no longer exists; "
                            "cd elsewhere") from exc
        raise ToolError(f"could not start the program: {exc}") from exc
    except OSError as exc:
        raise ToolError(f"could not start the program: {exc}") from exc


def _next_id(registry: dict[str, Any]) -> str:
    """pty1, pty2, ... per agent session. Pruning drops the oldest closed sessions only,
    so the highest number is still there and ids are never reused."""
    numbers = [int(sid[3:]) for sid in registry if sid[3:].isdigit()]
    return f"pty{max(numbers, default=0) + 1}"


def sessions(ctx: ToolContext) -> list[PtySession]:
    """Every session of this agent session still remembered, oldest first."""
    return list(ctx.interactive.values())


def running_sessions(ctx: ToolContext) -> list[PtySession]:
    return [s for s in sessions(ctx) if s.state == "running"]


async def close_all(ctx: ToolContext, reason: str = "the agent session ended") -> None:
    """Stop every pseudo-terminal session: call when the agent session closes."""
    await asyncio.gather(*(s.close(reason) for s in sessions(ctx) if s.state != "closed"))

