"""Interactive programs in real pseudo-terminals: REPLs, curses, limits, policy, interrupts."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from engine_helpers import of_type, wait_until
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.session import Session
from vibe_tui.policy import PolicyContext
from vibe_tui.policy.decide import decide
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.tools import default_tools
from vibe_tui.tools import interactive, pty_session, sandbox
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.interactive import (
    INTERACTIVE_TOOLS,
    close_all,
    encode_input,
    parse_input,
    runs_a_shell,
)

start, send, stop = INTERACTIVE_TOOLS
# A program that never exits on its own and says when it is ready.
FOREVER = "echo ready; exec sleep 600"


@pytest.fixture
async def ctx(tmp_path: Path):
    """On the host: these tests watch process groups and sessions, which the sandbox's
    PID namespace hides. The sandboxed start has its own tests at the end."""
    context = ToolContext(workspace=tmp_path, sandbox_mode="off")
    yield context
    await close_all(context)


def alive(pid: int) -> bool:
    """A process counts as gone once it has exited, even if nobody reaped it yet."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def read_until(ctx: ToolContext, session_id: str, expected: str, timeout: float = 15.0):
    """Read the screen (empty input) until ``expected`` is on it: a loaded machine may
    take longer than one settle to start a program."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        out = await send.run({"session_id": session_id, "input": ""}, ctx)
        if expected in out.text or loop.time() > deadline:
            assert expected in out.text, out.text
            return out


def screen_of(output_text: str) -> list[str]:
    """The screen lines of a tool result, between its markers."""
    lines = output_text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("--- screen "))
    last = lines.index("--- end of screen ---")
    return lines[first + 1:last]


# -- input -----------------------------------------------------------------------------


async def test_tool_list_and_kinds():
    assert [t.name for t in INTERACTIVE_TOOLS] == [
        "interactive_start", "interactive_send", "interactive_stop"]
    assert {t.kind for t in INTERACTIVE_TOOLS} == {"exec"}
    for tool in INTERACTIVE_TOOLS:
        assert tool.parameters["type"] == "object"
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"])
    # Small models need to be told when to reach for these instead of bash.
    assert "bash" in start.description and "pdb" in start.description


def test_named_keys_and_newlines():
    assert parse_input("1+1<enter>") == [("text", "1+1"), ("key", "enter")]
    assert parse_input("a\nb") == [("text", "a"), ("key", "enter"), ("text", "b")]
    assert parse_input("<C-c><ctrl+D><Ctrl-z>") == [
        ("key", "ctrl-c"), ("key", "ctrl-d"), ("key", "ctrl-z")]
    # Unknown tags are text: HTML typed into a program stays HTML.
    assert parse_input("<div>x</div>") == [("text", "<div>x</div>")]
    assert encode_input(parse_input("x<tab><esc><backspace><ctrl-c><ctrl-d>"), False) == \
        b"x\t\x1b\x7f\x03\x04"
    # Cursor keys follow the terminal's mode, as a real terminal's do.
    assert encode_input(parse_input("<up><left>"), app_cursor=False) == b"\x1b[A\x1b[D"
    assert encode_input(parse_input("<up><left>"), app_cursor=True) == b"\x1bOA\x1bOD"


def test_which_commands_run_a_shell():
    for command in ("bash", "bash --norc", "/bin/sh -i", "env FOO=1 zsh",
                    "docker exec -it box sh", "ssh host", "poetry shell", "nix-shell"):
        assert runs_a_shell(command), command
    for command in ("python3 -q", "python3 -m pdb app.py", "npm init", "node", "top",
                    "python3 draw_screen.py"):
        assert not runs_a_shell(command), command


# -- programs --------------------------------------------------------------------------


async def test_python_repl(ctx):
    out = await start.run({"command": "python3 -q"}, ctx)
    assert out.ok and out.meta["session_id"] == "pty1" and out.meta["state"] == "running"
    await read_until(ctx, "pty1", ">>>")

    out = await send.run({"session_id": "pty1", "input": "1+1<enter>"}, ctx)
    if ">>> 1+1\n2\n>>>" not in out.text:
        out = await read_until(ctx, "pty1", "\n2\n")
    assert screen_of(out.text)[-2:] == ["2", ">>>"]
    assert "cursor at row 3, column 5" in out.text

    out = await send.run({"session_id": "pty1", "input": "<ctrl-d>"}, ctx)
    assert "exited with code 0" in out.text
    assert out.exit_code == 0 and out.ok and out.meta["state"] == "closed"
    with pytest.raises(ToolError, match="pty1 .* is over: the program exited with code 0"
                       ".* Nothing can be sent to it. To run a command again use bash"):
        await send.run({"session_id": "pty1", "input": "1<enter>"}, ctx)


CURSES_PROGRAM = textwrap.dedent("""
    import curses

    def main(stdscr):
        curses.curs_set(0)
        stdscr.addstr(2, 5, "CURSES DEMO")
        stdscr.addstr(4, 5, f"size {curses.COLS}x{curses.LINES}")
        stdscr.refresh()
        while True:
            key = stdscr.getkey()
            if key == "q":
                return
            stdscr.addstr(6, 5, f"got {key}".ljust(20))
            stdscr.refresh()

    curses.wrapper(main)
""")


async def test_curses_screen_is_read_back(ctx, tmp_path):
    (tmp_path / "demo.py").write_text(CURSES_PROGRAM)
    out = await start.run({"command": f"{sys.executable} demo.py", "cols": 60, "rows": 20}, ctx)
    sid = out.meta["session_id"]
    out = await read_until(ctx, sid, "CURSES DEMO")
    screen = screen_of(out.text)
    assert screen[2] == "     CURSES DEMO"
    assert screen[4] == "     size 60x20"
    assert "screen 60x20, cursor hidden" in out.text

    # curses turns on application cursor keys; the arrow must arrive as KEY_UP.
    await send.run({"session_id": sid, "input": "<up>"}, ctx)
    out = await read_until(ctx, sid, "got KEY_UP")
    assert screen_of(out.text)[6] == "     got KEY_UP"

    out = await send.run({"session_id": sid, "input": "q"}, ctx)
    if out.meta["state"] != "closed":
        out = await read_until(ctx, sid, "exited with code 0")
    assert out.exit_code == 0


async def test_program_that_exits_at_once(ctx):
    out = await start.run({"command": "echo hi; exit 3"}, ctx)
    assert "exited with code 3" in out.text and screen_of(out.text) == ["hi"]
    assert out.exit_code == 3 and not out.ok
    assert interactive.running_sessions(ctx) == []
    # A small model that ran its tests here is told where such commands belong.
    assert out.text.endswith(interactive.RAN_TO_COMPLETION)


async def _reads_until(ctx: ToolContext, first_text: str, sid: str, expected: str):
    """Every result from ``first_text`` on, until one has ``expected`` on its screen."""
    texts = [first_text]
    while expected not in "\n".join(screen_of(texts[-1])):
        texts.append((await read_until(ctx, sid, "")).text)
    return texts


def _scrolled_sections(text: str) -> tuple[str | None, list[str]]:
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if "scrolled off the top" in line), None)
    if header is None:
        return None, []
    return lines[header], lines[header + 1:lines.index(next(
        line for line in lines if line.startswith("--- screen ")))]


async def test_scrolled_lines_are_shown_once(ctx):
    out = await start.run({"command": "seq 1 120; exec sleep 600", "rows": 30}, ctx)
    texts = await _reads_until(ctx, out.text, out.meta["session_id"], "120")
    shown = [line for text in texts for line in _scrolled_sections(text)[1]]
    assert shown + screen_of(texts[-1]) == [str(n) for n in range(1, 121)]
    again = await send.run({"session_id": out.meta["session_id"], "input": ""}, ctx)
    assert "scrolled off" not in again.text


async def test_scrolled_lines_are_capped_per_read(ctx):
    out = await start.run({"command": "seq 1 300; exec sleep 600", "rows": 10}, ctx)
    texts = await _reads_until(ctx, out.text, out.meta["session_id"], "300")
    headers = [_scrolled_sections(text)[0] or "" for text in texts]
    assert any("the last 100 of" in header for header in headers), headers
    assert all(len(_scrolled_sections(text)[1]) <= 100 for text in texts)


async def test_sizes_are_capped(ctx):
    with pytest.raises(ToolError, match="cols"):
        start.precheck({"command": "true", "cols": 5}, ctx)
    out = await start.run({"command": FOREVER, "cols": 1000, "rows": 1000}, ctx)
    assert "screen 250x100" in out.text
    assert "cols 1000 is above the maximum; using 250" in out.text


# -- stopping --------------------------------------------------------------------------


async def test_stop_ends_a_program_that_never_exits(ctx):
    out = await start.run({"command": FOREVER}, ctx)
    session = ctx.interactive[out.meta["session_id"]]
    pid = session.process.pid
    assert alive(pid)
    out = await stop.run({"session_id": session.id}, ctx)
    assert out.ok and "stopped with interactive_stop" in out.text and "ready" in out.text
    assert not alive(pid)
    with pytest.raises(ToolError, match="is closed"):
        send.precheck({"session_id": session.id, "input": "x"}, ctx)


async def test_an_interactive_shell_is_stopped_too(ctx):
    """Interactive bash ignores SIGTERM; the hang-up of its terminal ends it."""
    out = await start.run({"command": "bash --norc -i"}, ctx)
    session = ctx.interactive[out.meta["session_id"]]
    await send.run({"session_id": session.id, "input": "sleep 600 &<enter>"}, ctx)
    out = await read_until(ctx, session.id, "[1]")  # job control: the job has its own group
    await stop.run({"session_id": session.id}, ctx)
    assert not alive(session.process.pid)
    # The hang-up reaches the background job too (bash passes it on to its jobs).
    await wait_until(lambda: not _live_in_session(session.process.pid), timeout=5)


def _live_in_session(sid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


async def test_idle_sessions_are_closed(ctx, monkeypatch):
    monkeypatch.setattr(pty_session, "IDLE_LIMIT_S", 0.5)
    out = await start.run({"command": FOREVER}, ctx)
    session = ctx.interactive[out.meta["session_id"]]
    await wait_until(lambda: session.state == "closed", timeout=10)
    assert "without input" in session.closed_reason
    await wait_until(lambda: not alive(session.process.pid), timeout=5)
    with pytest.raises(ToolError, match="without input"):
        send.precheck({"session_id": session.id, "input": ""}, ctx)


async def test_a_call_in_progress_is_not_idle(ctx, monkeypatch):
    monkeypatch.setattr(pty_session, "IDLE_LIMIT_S", 0.4)
    out = await start.run({"command": FOREVER}, ctx)
    sid = out.meta["session_id"]
    out = await send.run({"session_id": sid, "input": "", "wait_ms": 1000}, ctx)
    assert out.meta["state"] == "running"


async def test_close_all_ends_every_session(ctx):
    pids = []
    for _ in range(2):
        out = await start.run({"command": FOREVER}, ctx)
        pids.append(ctx.interactive[out.meta["session_id"]].process.pid)
    await close_all(ctx)
    assert not any(alive(pid) for pid in pids)
    assert interactive.running_sessions(ctx) == []


async def test_at_most_four_sessions(ctx):
    for n in range(1, 5):
        out = await start.run({"command": FOREVER}, ctx)
        assert out.meta["session_id"] == f"pty{n}"
    with pytest.raises(ToolError, match="at most 4") as refused:
        start.precheck({"command": "python3 -q"}, ctx)
    assert "pty1" in str(refused.value) and "pty4" in str(refused.value)
    with pytest.raises(ToolError, match="at most 4"):
        await start.run({"command": "python3 -q"}, ctx)
    await stop.run({"session_id": "pty2"}, ctx)
    out = await start.run({"command": FOREVER}, ctx)
    assert out.meta["session_id"] == "pty5"  # ids are not reused


# -- policy ----------------------------------------------------------------------------


def _decision(ctx: ToolContext, args: dict, **policy):
    request = send.precheck(args, ctx)
    return request, decide(request, PolicyContext(mode="default", workspace=ctx.workspace,
                                                  **policy))


async def test_lines_typed_into_a_shell_are_checked_like_bash(ctx):
    out = await start.run({"command": "bash --norc"}, ctx)
    sid = out.meta["session_id"]
    request, decision = _decision(ctx, {"session_id": sid, "input": "ls<enter>"})
    assert (request.tool, request.command, decision.action) == ("bash", "ls", "allow")
    request, decision = _decision(ctx, {"session_id": sid, "input": "touch y<enter>"})
    assert decision.action == "ask" and request.command == "touch y"
    _, decision = _decision(ctx, {"session_id": sid, "input": "touch y<enter>"},
                            deny=["Bash(touch:*)"])
    assert decision.action == "deny"
    # Typing without Enter is checked too, or a later bare Enter would run it unseen.
    _, decision = _decision(ctx, {"session_id": sid, "input": "touch y"})
    assert decision.action == "ask"
    # History and completion keys make the line unknowable: ask.
    _, decision = _decision(ctx, {"session_id": sid, "input": "<up><enter>"})
    assert decision.action == "ask"
    # Keys that type nothing are not asked.
    for keys in ("", "<ctrl-c>", "<enter>"):
        request, decision = _decision(ctx, {"session_id": sid, "input": keys})
        assert (request.kind, decision.action) == ("read", "allow")


async def test_a_typed_line_is_checked_where_the_shell_is(ctx, tmp_path):
    (tmp_path / "sub").mkdir()
    out = await start.run({"command": "bash --norc"}, ctx)
    sid = out.meta["session_id"]
    request, _ = _decision(ctx, {"session_id": sid, "input": "ls<enter>"})
    assert request.cwd == tmp_path
    await send.run({"session_id": sid, "input": "cd sub<enter>"}, ctx)
    await wait_until(lambda: ctx.interactive[sid].current_dir() == tmp_path / "sub")
    request, _ = _decision(ctx, {"session_id": sid, "input": "ls<enter>"})
    assert request.cwd == tmp_path / "sub"


async def test_a_bare_enter_completes_the_checked_line(ctx):
    """The pending line joins what is typed next, so its check covers the whole line."""
    out = await start.run({"command": "bash --norc"}, ctx)
    sid = out.meta["session_id"]
    await send.run({"session_id": sid, "input": "echo hi"}, ctx)
    request, decision = _decision(ctx, {"session_id": sid, "input": " > y<enter>"})
    assert request.command == "echo hi > y" and decision.action == "ask"


async def test_sends_to_a_repl_are_not_asked(ctx):
    out = await start.run({"command": "python3 -q"}, ctx)
    request, decision = _decision(ctx, {"session_id": out.meta["session_id"],
                                        "input": "import os<enter>"})
    assert (request.tool, request.kind, decision.action) == ("interactive_send", "read", "allow")


def _session(llm, workspace: Path, **config) -> Session:
    interactive_mode = config.pop("interactive", True)
    tools = [*INTERACTIVE_TOOLS, *default_tools()]
    session = Session(Config(model=llm.model, api_base=llm.base_url, model_retry_base_s=0.01,
                             **config), workspace, tools=tools, interactive=interactive_mode)
    session.tool_context.sandbox_mode = "off"
    return session


async def test_a_denied_start_never_runs(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("interactive_start", {"command": "touch x"})),
                  text("ok"))
    session = _session(fake_llm, tmp_path)
    session.send("make x")
    await wait_until(lambda: of_type(session, ev.ApprovalRequested), timeout=60)
    asked = of_type(session, ev.ApprovalRequested)[0]
    assert asked.tool == "interactive_start"
    session.answer(asked.approval_id, "deny")
    await session.wait_idle()
    assert of_type(session, ev.ToolResult)[0].status == "denied"
    assert not (tmp_path / "x").exists()
    assert interactive.sessions(session.tool_context) == []
    await session.close()


async def test_a_headless_start_is_denied(fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("interactive_start", {"command": "touch x"})),
                  text("ok"))
    session = _session(fake_llm, tmp_path, interactive=False)
    session.send("make x")
    await session.wait_idle()
    result = of_type(session, ev.ToolResult)[0]
    assert result.status == "denied" and "headless" in result.output
    assert not (tmp_path / "x").exists()
    await session.close()


async def test_a_line_the_user_denies_never_runs_in_the_shell(fake_llm, tmp_path):
    fake_llm.push(
        tool_calls(tool_call("interactive_start", {"command": "bash --norc"})),
        tool_calls(tool_call("interactive_send", {"session_id": "pty1",
                                                  "input": "touch y<enter>"})),
        text("ok"))
    session = _session(fake_llm, tmp_path, allow=["Bash(bash:*)"], interactive=False)
    session.send("make y")
    await session.wait_idle()
    start_result, send_result = of_type(session, ev.ToolResult)
    assert start_result.status == "ok" and send_result.status == "denied"
    assert not (tmp_path / "y").exists()
    await close_all(session.tool_context)
    await session.close()


async def test_an_interrupt_stops_the_wait_and_keeps_the_session(fake_llm, tmp_path):
    fake_llm.push(
        tool_calls(tool_call("interactive_start", {"command": "python3 -q"})),
        tool_calls(tool_call("interactive_send", {
            "session_id": "pty1", "input": "import time; time.sleep(600)<enter>",
            "wait_ms": 10000})),
        text("ok"))
    session = _session(fake_llm, tmp_path, mode="yolo")
    session.send("sleep in python")
    ctx = session.tool_context
    await wait_until(lambda: "pty1" in ctx.interactive and ctx.interactive["pty1"].lock.locked()
                     and len(of_type(session, ev.ToolResult)) == 1, timeout=60)
    assert session.interrupt()
    await asyncio.wait_for(session.wait_idle(), 30)
    assert of_type(session, ev.TurnEnded)[-1].state == "interrupted"
    pty = ctx.interactive["pty1"]
    assert pty.state == "running" and alive(pty.process.pid)

    await send.run({"session_id": "pty1", "input": "<ctrl-c>"}, ctx)
    await send.run({"session_id": "pty1", "input": "6*7<enter>"}, ctx)
    await read_until(ctx, "pty1", "\n42\n")
    await close_all(ctx)
    assert not alive(pty.process.pid)
    await session.close()


async def test_the_program_runs_in_the_workspace_with_a_terminal(ctx, tmp_path):
    (tmp_path / "sub").mkdir()
    ctx.cwd = tmp_path / "sub"
    out = await start.run({"command": "pwd; echo $TERM $COLUMNS $LINES; tty; "
                                      "echo ci=${CI:-unset}; exec sleep 600",
                           "cols": 80, "rows": 24}, ctx)
    out = await read_until(ctx, out.meta["session_id"], "ci=")
    screen = screen_of(out.text)
    assert screen[0] == str(tmp_path / "sub")
    assert screen[1] == "xterm-256color 80 24"
    assert screen[2].startswith("/dev/pts/")
    assert screen[3] == "ci=unset"


# -- the sandbox -----------------------------------------------------------------------


async def test_no_sandbox_and_no_host_means_no_start(tmp_path, monkeypatch):
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(tmp_path / "no-bwrap"))
    monkeypatch.delenv(sandbox.ALLOW_HOST_ENV, raising=False)
    context = ToolContext(workspace=tmp_path)
    with pytest.raises(ToolError, match="Command not run: bubblewrap is not installed"):
        await start.run({"command": "touch x"}, context)
    assert not (tmp_path / "x").exists() and interactive.sessions(context) == []


needs_bwrap = pytest.mark.skipif(sandbox.probe().kind != "bubblewrap",
                                 reason="bubblewrap cannot start here (CI installs it)")


@needs_bwrap
async def test_a_sandboxed_program_has_its_terminal(tmp_path):
    context = ToolContext(workspace=tmp_path)
    try:
        out = await start.run({"command": "python3 -q"}, context)
        sid = out.meta["session_id"]
        await read_until(context, sid, ">>>")
        await send.run({"session_id": sid, "input": "import time; time.sleep(600)<enter>"},
                       context)
        await send.run({"session_id": sid, "input": "<ctrl-c>"}, context)
        await read_until(context, sid, "KeyboardInterrupt")
        await send.run({"session_id": sid, "input": "open('/usr/x', 'w')<enter>"}, context)
        await read_until(context, sid, "Read-only file system")
        out = await send.run({"session_id": sid, "input": "raise SystemExit(7)<enter>"}, context)
        if out.meta["state"] != "closed":
            out = await read_until(context, sid, "exited with code 7")
        assert out.exit_code == 7
    finally:
        await close_all(context)


@needs_bwrap
async def test_a_sandboxed_program_is_stopped(tmp_path):
    context = ToolContext(workspace=tmp_path)
    out = await start.run({"command": FOREVER}, context)
    session = context.interactive[out.meta["session_id"]]
    await stop.run({"session_id": session.id}, context)
    assert not alive(session.process.pid)


@needs_bwrap
async def test_stopping_a_sandboxed_program_ends_what_escaped_its_group(tmp_path):
    """A child in a session of its own, deaf to the hang-up, is still inside the
    sandbox: stopping kills the sandbox's init, and the kernel takes the child along."""
    marker = "612345.5"  # an argument to find the child by from outside its PID namespace
    context = ToolContext(workspace=tmp_path)
    out = await start.run({"command": f"setsid nohup sleep {marker} >/dev/null 2>&1 & "
                                      "echo ready; exec sleep 600"}, context)
    sid = out.meta["session_id"]
    await read_until(context, sid, "ready")
    await wait_until(lambda: _running_with_argument(marker), timeout=10)
    await stop.run({"session_id": sid}, context)
    await wait_until(lambda: not _running_with_argument(marker), timeout=5)


@needs_bwrap
@pytest.mark.parametrize("turns", [0, 1, 3, 10])
async def test_nothing_survives_an_interrupt_while_the_sandbox_starts(tmp_path, turns):
    """Cancelled after a few turns of the event loop: somewhere inside the start. The
    start is seen through and stopped, sandbox included, or it finished and the session
    is registered (an interrupt keeps sessions); nothing runs unaccounted for."""
    marker = f"61{turns}99.5"
    context = ToolContext(workspace=tmp_path)
    task = asyncio.create_task(start.run({"command": f"sleep {marker}"}, context))
    for _ in range(turns):
        await asyncio.sleep(0)  # one turn of the loop, not a wait
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    try:
        if not interactive.sessions(context):
            await wait_until(lambda: not _running_with_argument(marker), timeout=5)
    finally:
        await close_all(context)
    await wait_until(lambda: not _running_with_argument(marker), timeout=5)


def _running_with_argument(argument: str) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if argument.encode() in words and alive(int(cmdline.parent.name)):
            found.append(int(cmdline.parent.name))
    return found


@pytest.mark.parametrize("args, message", [
    ({}, "missing required argument 'command'"),
    ({"command": "  \n"}, "argument 'command' must not be empty"),
    ({"command": ["python3"]}, "argument 'command' must be a str"),
])
async def test_a_start_without_a_command_is_refused_as_bash_refuses_it(ctx, args, message):
    from vibe_tui.tools.shell import BashTool

    for tool in (start, BashTool()):
        with pytest.raises(ToolError, match=message):
            tool.precheck(args, ctx)
    with pytest.raises(ToolError, match=message):
        await start.run(args, ctx)
    assert interactive.sessions(ctx) == []
