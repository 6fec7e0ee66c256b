"""Interactive programs in a pseudo-terminal: ``interactive_start``, ``interactive_send``,
``interactive_stop``.

The terminal itself, its emulator and its process are ``vibe_tui.tools.pty_session``;
this module is what the model sees of it: the tools, their arguments, the named keys it
types, and the screen as a report. Like ``bash``, the program runs inside the sandbox
where it is in force and is refused where the sandbox cannot start and the user has not
allowed the host.

Policy. Starting a program is a shell command and goes through the policy exactly as
``bash`` does. Sending input depends on what runs: a line typed into a shell *is* a bash
command, so for a session whose command runs a shell (``bash``, ``sh``, ``ssh``, ...),
every send that types text is checked as the bash command made of the line it completes
(see ``InteractiveSendTool.precheck``); for any other program (a REPL, a debugger, a
form), approving the start approved talking to it, and sends are not asked again.

Sessions live in ``ToolContext.interactive``; a few limits keep them from piling up:
at most ``MAX_SESSIONS`` running, idle ones closed after ``pty_session.IDLE_LIMIT_S``, capped screen
size and scrollback, all closed by ``close_all`` when the agent session ends. An
interrupt cancels the call waiting on a session but leaves the session running.
"""

from __future__ import annotations

import re
from typing import Any

from vibe_tui.policy.types import ToolRequest
from vibe_tui.tools.base import (
    ToolContext,
    ToolError,
    ToolOutput,
    optional,
    require,
    require_command,
)
from vibe_tui.tools.shell import after_command
from vibe_tui.tools.terminal import CURSOR_KEYS, KEYS, key_bytes
from vibe_tui.tools.pty_session import (  # noqa: F401 - public names of this module too
    SCROLLBACK_SHOWN,
    WAIT_CAP_S,
    WRITE_TIMEOUT_S,
    PtySession,
    close_all,
    open_session,
    running_sessions,
    runs_a_shell,
    sessions,
)

MAX_SESSIONS = 4
EXITED = "the program exited"  # the reason a session closes when its program ends
RAN_TO_COMPLETION = ("The program ran to completion without waiting for input, so the "
                     "session is over. Run commands like this (tests, scripts, builds) with "
                     "bash: it returns the whole output and the exit code.")
DEFAULT_COLS, DEFAULT_ROWS = 100, 30
MIN_COLS, MIN_ROWS = 20, 5
MAX_COLS, MAX_ROWS = 250, 100

# -- input -------------------------------------------------------------------------------

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
    if session.state == "closed" and (session.closed_reason or "").startswith(EXITED):
        # Small models keep typing into a finished test run; say plainly that it is over.
        raise ToolError(f"session {session_id} ({_short(session.command)}) is over: "
                        f"{session.closed_reason}, and its last screen was already "
                        f"returned. Nothing can be sent to it. To run a command again use "
                        f"bash, or interactive_start if it waits for input; "
                        f"{_describe_open(ctx)}")
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
        await session.close(f"{EXITED} with code {session.exit_code}")
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
        command = require_command(args)
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
            if session.state == "exited":
                notes.append(RAN_TO_COMPLETION)
            return await report(session, busy, await _checked(ctx, notes))


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
            return await report(session, busy, await _checked(ctx, notes))


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
        return await report(session, False, await _checked(ctx, []), stopped=True)


async def _checked(ctx: ToolContext, notes: list[str]) -> list[str]:
    """``notes``, plus what was done about git folders the program created meanwhile."""
    quarantined = await after_command(ctx)
    return [*notes, quarantined] if quarantined else notes


INTERACTIVE_TOOLS = [InteractiveStartTool(), InteractiveSendTool(), InteractiveStopTool()]
