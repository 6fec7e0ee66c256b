"""Interactive programs in a pseudo-terminal: ``interactive_start``, ``interactive_send``,
``interactive_stop``.

Each session is a real pseudo-terminal whose output is rendered by a terminal emulator
(``pyte``), so the model reads the screen a person would see: a REPL prompt, a debugger's
listing, a curses form. The program is the leader of its own session with the terminal
as its controlling terminal (``setsid --ctty``), so ``<ctrl-c>`` interrupts it as in a
real terminal, and when vibe-tui goes away the terminal hangs up and takes it along.
Like ``bash``, the program runs inside the sandbox where it is in force
(``vibe_tui.tools.sandbox``) and is refused where the sandbox cannot start and the user
has not allowed the host.

Policy. Starting a program is a shell command and goes through the policy exactly as
``bash`` does. Sending input depends on what runs: a line typed into a shell *is* a bash
command, so for a session whose command runs a shell (``bash``, ``sh``, ``ssh``, ...),
every send that types text is checked as the bash command made of the line it completes
(see ``InteractiveSendTool.precheck``); for any other program (a REPL, a debugger, a
form), approving the start approved talking to it, and sends are not asked again.

Sessions live in ``ToolContext.interactive``; a few limits keep them from piling up:
at most ``MAX_SESSIONS`` running, idle ones closed after ``IDLE_LIMIT_S``, capped screen
size and scrollback, all closed by ``close_all`` when the agent session ends. An
interrupt cancels the call waiting on a session but leaves the session running.
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
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pyte
from pyte.screens import Margins

from vibe_tui.tools import sandbox
from vibe_tui.tools.base import (
    ToolContext,
    ToolError,
    ToolOutput,
    ToolRequest,
    optional,
    require,
)
from vibe_tui.tools.environment import interactive_env
from vibe_tui.tools.shell import kill_process_group

log = logging.getLogger(__name__)

MAX_SESSIONS = 4
IDLE_LIMIT_S = 600.0  # read when a session is armed, so tests may lower it
DEFAULT_COLS, DEFAULT_ROWS = 100, 30
MIN_COLS, MIN_ROWS = 20, 5
MAX_COLS, MAX_ROWS = 250, 100
SCROLLBACK_LINES = 1000  # kept per session
SCROLLBACK_SHOWN = 100  # at most this many scrolled-off lines in one tool result
KEEP_CLOSED = 16  # closed sessions remembered, so a late send gets a precise answer
# Waiting: the screen is read once output has paused this long ...
SETTLE_S = 0.3
# ... or, when the program says nothing at all, after this long ...
FIRST_OUTPUT_S = 1.0
# ... and never later than this (wait_ms is capped to it too).
WAIT_CAP_S = 10.0
EXIT_DRAIN_S = 0.3  # after the program exits, how long to wait for its last output
WRITE_TIMEOUT_S = 2.0  # a program that reads no input does not block a call forever
# pyte emulates about 0.2-0.3 MB/s of scrolling text (15-35 ms of CPU per 4 KiB), so
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

# -- keys -------------------------------------------------------------------------------

KEYS = {
    "enter": "\r",
    "return": "\r",
    "tab": "\t",
    "esc": "\x1b",
    "escape": "\x1b",
    "backspace": "\x7f",
    "space": " ",
    "delete": "\x1b[3~",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
}
# Cursor keys differ in "application cursor keys" mode (DECCKM, set by curses programs
# through keypad()): ESC O A instead of ESC [ A.
CURSOR_KEYS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
DECCKM = 1 << 5  # pyte stores private mode N as N << 5
# <ctrl-c>, also written <ctrl+c> or <c-c>; or a name from KEYS / CURSOR_KEYS.
_KEY_TOKEN = re.compile(r"<(?:(?:ctrl[-+]|c-)([a-z])|([a-z]+))>", re.IGNORECASE)
# Keys after which the shell starts a new line: enter runs it, ctrl-c and ctrl-u drop it.
_LINE_RESETS = frozenset({"ctrl-c", "ctrl-u"})
# Keys that type nothing a shell would run.
_NOT_TYPING = frozenset({"enter", "return", "ctrl-c", "ctrl-u", "ctrl-d"})


def parse_input(text: str) -> list[tuple[str, str]]:
    """``"1+1<enter>"`` -> [("text", "1+1"), ("key", "enter")]. A newline is Enter; an
    unknown ``<word>`` is typed as it is (``<div>`` is text, not a key)."""
    text = text.replace("\r\n", "\n")
    pieces: list[tuple[str, str]] = []
    position = 0
    for match in _KEY_TOKEN.finditer(text):
        letter, word = match.group(1), match.group(2)
        name = f"ctrl-{letter.lower()}" if letter else word.lower()
        if not letter and name not in KEYS and name not in CURSOR_KEYS:
            continue
        _add_text(pieces, text[position:match.start()])
        pieces.append(("key", name))
        position = match.end()
    _add_text(pieces, text[position:])
    return pieces


def _add_text(pieces: list[tuple[str, str]], text: str) -> None:
    for index, line in enumerate(text.split("\n")):
        if index:
            pieces.append(("key", "enter"))
        if line:
            pieces.append(("text", line))


def key_bytes(name: str, app_cursor: bool) -> str:
    if name in KEYS:
        return KEYS[name]
    if name in CURSOR_KEYS:
        return ("\x1bO" if app_cursor else "\x1b[") + CURSOR_KEYS[name]
    return chr(ord(name[-1]) - ord("a") + 1)  # ctrl-a .. ctrl-z


def encode_input(pieces: list[tuple[str, str]], app_cursor: bool) -> bytes:
    out = "".join(value if kind == "text" else key_bytes(value, app_cursor)
                  for kind, value in pieces)
    return out.encode("utf-8", "surrogatepass")


def shell_lines(pending: str, pieces: list[tuple[str, str]]) -> tuple[list[str], str]:
    """What a shell receives: the lines ``pieces`` complete (the first one continues
    ``pending``, the text typed earlier without Enter), and the new unfinished line.
    Other keys (arrows, tab, history, ...) edit the line in ways only the shell knows:
    they stay in it as an escape character and their name, so the policy reads the line
    as unreadable and asks."""
    lines: list[str] = []
    line = pending
    for kind, value in pieces:
        if kind == "text":
            line += value
        elif value in ("enter", "return"):
            lines.append(line)
            line = ""
        elif value in _LINE_RESETS:
            line = ""
        else:
            line += f"\x1b<{value}>"
    return lines, line


def runs_a_shell(command: str) -> bool:
    """Whether input typed into ``command`` reaches a shell. Generous on purpose: a
    false "yes" costs a question, a false "no" runs lines unchecked."""
    for word in re.split(r"[^\w./+-]+", command):
        name = word.rsplit("/", 1)[-1]
        if name in SHELL_PROGRAMS or name.endswith("-shell"):
            return True
    return False


# -- the terminal ----------------------------------------------------------------------


def render_line(line: Any, columns: int) -> str:
    """One pyte buffer line as text, trailing blanks trimmed. The second cell of a wide
    character holds "", so a plain join shows the character once without the wcwidth
    call per cell that pyte's own ``display`` makes."""
    return "".join(line[x].data for x in range(columns)).rstrip()


class TerminalScreen(pyte.Screen):
    """pyte's screen with a bounded scrollback, answering the program's queries
    (cursor position, device attributes) through ``reply``."""

    def __init__(self, cols: int, rows: int, reply: Callable[[str], None]) -> None:
        # Buffer rows as pyte left them: a row that scrolled off is never written again,
        # so it is kept as it is and rendered only when read (scrolling stays cheap).
        self.scrollback: deque[Any] = deque(maxlen=SCROLLBACK_LINES)
        self.scrolled = 0  # lines that ever scrolled off the top
        self._reply = reply
        super().__init__(cols, rows)

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        # Only a whole-screen scroll feeds the scrollback; a curses program scrolling a
        # region of its window is redrawing, not printing.
        if self.cursor.y == bottom and top == 0 and bottom == self.lines - 1:
            self.scrollback.append(self.buffer[top])
            self.scrolled += 1
        super().index()

    def write_process_input(self, data: str) -> None:
        self._reply(data)

    def text_lines(self) -> list[str]:
        lines = [render_line(self.buffer[y], self.columns) for y in range(self.lines)]
        while lines and not lines[-1]:
            lines.pop()
        return lines


class PtySession:
    """One program in a pseudo-terminal. Views may watch it (``add_listener``, ``lines``,
    ``cursor``) and type into it (``type_raw``); the tools drive it through ``write`` and
    ``settle``."""

    def __init__(self, session_id: str, command: str, cols: int, rows: int,
                 process: asyncio.subprocess.Process, master: int,
                 registry: dict[str, Any]) -> None:
        self.id = session_id
        self.command = command
        self.cols, self.rows = cols, rows
        self.process = process
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
        # Also after the program exited: children it left in its group go with it.
        await kill_process_group(self.process.pid)
        await self._waiter
        self.exit_code = self.process.returncode


def _forget_old_closed(registry: dict[str, Any]) -> None:
    closed = [sid for sid, s in registry.items() if s.state == "closed"]
    for sid in closed[:-KEEP_CLOSED]:
        del registry[sid]


# -- starting --------------------------------------------------------------------------


async def terminal_argv(command: str, ctx: ToolContext) -> tuple[list[str], bool]:
    """The command line that runs ``command`` with the terminal as its controlling
    terminal, and whether it must be started in a new session. As for bash (shell.py):
    inside the sandbox where it is in force, refused where it cannot start and the user
    has not allowed the host.

    ``setsid --ctty`` gives the program the terminal, so <ctrl-c> signals it. Outside the
    sandbox it runs as the child itself (not a group leader, so it does not fork) and the
    program keeps its pid. Inside, bubblewrap's ``--new-session`` has just detached the
    program from every terminal, so setsid forks, takes the terminal in a new session, and
    waits (``--wait``) so the sandbox lives as long as the program."""
    state = await sandbox.in_force_async(ctx)
    if state.kind == "unavailable":
        raise ToolError(sandbox.refusal(state))
    argv = ["bash", "-c", command]
    setsid = shutil.which("setsid")
    if state.kind == "bubblewrap":
        inner = [setsid, "--ctty", "--wait", *argv] if setsid else argv
        return sandbox.wrap(inner, ctx, network=ctx.sandbox_network), True
    if setsid:
        return [setsid, "--ctty", *argv], False
    return argv, True  # without setsid (not Linux): own session, no controlling terminal


def _set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


async def open_session(command: str, ctx: ToolContext, cols: int, rows: int) -> PtySession:
    """Start ``command`` under ``bash -c`` in a new pseudo-terminal, in ``ctx.cwd``."""
    assert ctx.cwd is not None
    argv, new_session = await terminal_argv(command, ctx)
    master, slave = os.openpty()
    try:
        _set_size(slave, cols, rows)
        os.set_blocking(master, False)
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=ctx.cwd, env=interactive_env(ctx, cols, rows),
            stdin=slave, stdout=slave, stderr=slave, start_new_session=new_session)
    except BaseException as exc:
        os.close(master)
        if isinstance(exc, FileNotFoundError) and not ctx.cwd.is_dir():
            raise ToolError(f"the current directory {ctx.cwd} no longer exists; "
                            "cd elsewhere") from exc
        if isinstance(exc, OSError):
            raise ToolError(f"could not start the program: {exc}") from exc
        raise
    finally:
        os.close(slave)  # the program holds it now; ours would hide its hang-up (EIO)
    session_id = _next_id(ctx.interactive)
    session = PtySession(session_id, command, cols, rows, process, master, ctx.interactive)
    ctx.interactive[session_id] = session
    return session


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


def _describe_open(ctx: ToolContext) -> str:
    running = running_sessions(ctx)
    if not running:
        return "no session is open"
    return "open sessions: " + ", ".join(f"{s.id} ({_short(s.command)})" for s in running)


def _short(command: str) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return line if len(line) <= 40 else line[:39] + "…"


def _find(ctx: ToolContext, args: dict[str, Any]) -> PtySession:
    session_id = require(args, "session_id", str).strip()
    session = ctx.interactive.get(session_id)
    if session is None:
        raise ToolError(f"no interactive session '{session_id}'; {_describe_open(ctx)}")
    if session.state == "closed":
        raise ToolError(f"session {session_id} ({_short(session.command)}) is closed: "
                        f"{session.closed_reason}. Start a new one with interactive_start; "
                        f"{_describe_open(ctx)}")
    return session


# -- what the model reads --------------------------------------------------------------


def render_report(session: PtySession, busy: bool, notes: list[str]) -> str:
    scrolled, total = session.take_scrolled()
    if session.state == "running":
        status = "running"
    elif session.state == "exited":
        status = f"exited with code {session.exit_code}; the session is closed"
    else:
        status = f"closed ({session.closed_reason})"
    parts = [f"session {session.id} · {_short(session.command)} · {status}"]
    if total:
        shown = f"the last {len(scrolled)} of {total}" if total > len(scrolled) else f"{total}"
        parts.append(f"--- {shown} lines that scrolled off the top since the last read ---")
        parts.extend(scrolled)
    cursor = session.cursor
    where = f"cursor at row {cursor[0]}, column {cursor[1]}" if cursor else "cursor hidden"
    parts.append(f"--- screen {session.cols}x{session.rows}, {where} ---")
    parts.extend(session.lines or ["(blank screen)"])
    parts.append("--- end of screen ---")
    if busy:
        notes.append(f"output was still arriving after {WAIT_CAP_S:g} s; call interactive_send "
                     "with empty input (and wait_ms) to read more")
    parts.extend(notes)
    return "\n".join(parts)


async def report(session: PtySession, busy: bool, notes: list[str], *,
                 stopped: bool = False) -> ToolOutput:
    """The screen for the model; a program that has exited is closed once reported."""
    text = render_report(session, busy, notes)
    if session.state == "exited":
        await session.close(f"the program exited with code {session.exit_code}")
    code = session.exit_code
    return ToolOutput(
        text,
        ok=stopped or code is None or code == 0,
        exit_code=code,
        meta={"session_id": session.id, "state": session.state, "cols": session.cols,
              "rows": session.rows, "shell": session.shell},
    )


# -- the tools -------------------------------------------------------------------------


def _size(args: dict[str, Any], name: str, default: int, low: int, high: int,
          notes: list[str]) -> int:
    value = optional(args, name, int, default)
    if value < low:
        raise ToolError(f"argument '{name}' must be at least {low}")
    if value > high:
        notes.append(f"{name} {value} is above the maximum; using {high}")
        return high
    return value


def _wait_s(args: dict[str, Any], notes: list[str]) -> float:
    wait_ms = optional(args, "wait_ms", int, 0)
    if wait_ms < 0:
        raise ToolError("argument 'wait_ms' must not be negative")
    if wait_ms > WAIT_CAP_S * 1000:
        notes.append(f"wait_ms {wait_ms} is above the maximum; waited {WAIT_CAP_S * 1000:g}")
    return min(wait_ms / 1000, WAIT_CAP_S)


class InteractiveStartTool:
    name = "interactive_start"
    kind = "exec"
    description = (
        "Start a program that waits for input in a pseudo-terminal, and see its screen. Use "
        "it for anything that asks questions or needs keys: REPLs (python3, node), debuggers "
        "(python3 -m pdb script.py, gdb), prompts and wizards (npm init), full-screen "
        "programs (curses, top). Example: interactive_start(command=\"python3 -m pdb "
        "app.py\"), then interactive_send the debugger commands. Use bash instead for "
        "commands that run to completion on their own (tests, builds, git, ls). Returns a "
        "session id and the screen once output settles. At most 4 sessions at a time; "
        "sessions idle for 10 minutes are closed. Stop a session with interactive_stop "
        "when done."
    )
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command line to run (bash syntax)."},
            "cols": {"type": "integer",
                     "description": f"Terminal width (default {DEFAULT_COLS}, max {MAX_COLS})."},
            "rows": {"type": "integer",
                     "description": f"Terminal height (default {DEFAULT_ROWS}, max {MAX_ROWS})."},
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        command = require(args, "command", str)
        if not command.strip():
            raise ToolError("argument 'command' must not be empty")
        _size(args, "cols", DEFAULT_COLS, MIN_COLS, MAX_COLS, [])
        _size(args, "rows", DEFAULT_ROWS, MIN_ROWS, MAX_ROWS, [])
        _check_room(ctx)  # refused now rather than after the user approved it
        return ToolRequest(tool=self.name, kind="exec", args=args, command=command, cwd=ctx.cwd)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        command = self.precheck(args, ctx).command
        assert command is not None
        notes: list[str] = []
        cols = _size(args, "cols", DEFAULT_COLS, MIN_COLS, MAX_COLS, notes)
        rows = _size(args, "rows", DEFAULT_ROWS, MIN_ROWS, MAX_ROWS, notes)
        session = await open_session(command, ctx, cols, rows)
        async with session.lock:
            try:
                busy = await session.settle()
            finally:
                session.arm_idle()  # an interrupt keeps the session, and its idle limit
            return await report(session, busy, notes)


def _check_room(ctx: ToolContext) -> None:
    if len(running_sessions(ctx)) >= MAX_SESSIONS:
        raise ToolError(f"at most {MAX_SESSIONS} interactive sessions may be open at once; "
                        f"{_describe_open(ctx)}. Stop one with interactive_stop first.")


class InteractiveSendTool:
    name = "interactive_send"
    kind = "exec"
    description = (
        "Type into an interactive session started with interactive_start, then read its "
        "screen once output settles. Text is typed as is; a newline or <enter> presses "
        "Enter. Named keys: <enter> <tab> <esc> <up> <down> <left> <right> <backspace> "
        "<delete> <home> <end> <pageup> <pagedown> <space> and <ctrl-a> ... <ctrl-z> "
        "(<ctrl-c> interrupts, <ctrl-d> ends input). Example: interactive_send("
        "session_id=\"pty1\", input=\"n<enter>\") steps pdb one line. Empty input just "
        "reads the screen again. wait_ms: wait at least this long before reading, for slow "
        "programs (default 0, max 10000). Lines typed into a shell are checked like bash "
        "commands."
    )
    parameters = {
        "type": "object",
        "properties": {
            "session_id": {"type": "string", "description": "The id interactive_start returned."},
            "input": {"type": "string", "description": "Text and named keys to type."},
            "wait_ms": {"type": "integer",
                        "description": "Minimum milliseconds to wait before reading the screen."},
        },
        "required": ["session_id", "input"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        """For a shell, the lines this input completes or starts are a bash command and
        are checked as one (tool "bash", so bash's rules and grants apply); keys that
        type nothing (Enter on a line typed earlier, ctrl-c) are not asked again,
        since the text they act on was checked when it was typed. Anything else talks to
        a program the user already approved."""
        session = _find(ctx, args)
        pieces = parse_input(require(args, "input", str))
        _wait_s(args, [])
        if session.shell and any(kind == "text" or value not in _NOT_TYPING
                                 for kind, value in pieces):
            lines, unfinished = shell_lines(session.pending_line, pieces)
            typed = "\n".join(line for line in [*lines, unfinished] if line.strip())
            if typed:
                return ToolRequest(tool="bash", kind="exec", args=args, command=typed,
                                   cwd=session.current_dir() or ctx.cwd)
        return ToolRequest(tool=self.name, kind="read", args=args)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        session = _find(ctx, args)
        pieces = parse_input(require(args, "input", str))
        notes: list[str] = []
        min_wait = _wait_s(args, notes)
        async with session.lock:
            session.hold_idle()
            try:
                if pieces and session.state != "running":
                    notes.append("the program had already exited; the input was not sent")
                elif pieces:
                    _, session.pending_line = shell_lines(session.pending_line, pieces)
                    left = await session.write(encode_input(pieces, session.app_cursor))
                    if left:
                        notes.append(f"the program did not read the last {left} bytes of "
                                     f"input within {WRITE_TIMEOUT_S:g} s")
                busy = await session.settle(min_wait)
            finally:
                session.arm_idle()
            return await report(session, busy, notes)


class InteractiveStopTool:
    name = "interactive_stop"
    kind = "exec"
    description = (
        "Stop an interactive session (the program and everything it started) and show its "
        "last screen. Stop sessions you no longer need: at most 4 may be open."
    )
    parameters = {
        "type": "object",
        "properties": {
            "session_id": {"type": "string", "description": "The session to stop."},
        },
        "required": ["session_id"],
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        _find(ctx, args)
        return ToolRequest(tool=self.name, kind="read", args=args)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        session = _find(ctx, args)
        if session.state == "running":
            await session.close("stopped with interactive_stop")
        return await report(session, False, [], stopped=True)


INTERACTIVE_TOOLS = [InteractiveStartTool(), InteractiveSendTool(), InteractiveStopTool()]
