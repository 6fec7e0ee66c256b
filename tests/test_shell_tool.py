"""The bash tool against real processes in a tmp_path workspace."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.shell import (
    SHELL_TOOLS,
    STDERR_CAP,
    STDOUT_CAP,
    KILL_GRACE_S,
    BashTool,
    parse_cd,
)
from vibe_tui.tools.processes import terminate_group

bash = BashTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path)


@pytest.fixture
def host_ctx(tmp_path: Path) -> ToolContext:
    """For tests about host processes (their PIDs, signals, background jobs that outlive
    the shell): inside the sandbox's PID namespace none of that is visible or possible.
    The sandbox's own versions of these guarantees are in test_sandbox.py."""
    return ToolContext(workspace=tmp_path, sandbox_mode="off")


def alive(pid: int) -> bool:
    """A process counts as gone once it has exited, even if nobody reaped it yet."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def wait_gone(pid: int, within_s: float = 3.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return False


async def wait_for_file(path: Path, within_s: float = 5.0) -> str:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_exported_tool_list():
    assert [t.name for t in SHELL_TOOLS] == ["bash"]


async def test_success_and_exit_code(ctx):
    out = await bash.run({"command": "echo hello"}, ctx)
    assert out.ok and out.exit_code == 0
    assert out.text == "hello\nexit code: 0"

    out = await bash.run({"command": "echo nope; exit 3"}, ctx)
    assert not out.ok and out.exit_code == 3
    assert out.text.endswith("exit code: 3")


async def test_signal_exit_is_negative(host_ctx):
    out = await bash.run({"command": "kill -9 $$"}, host_ctx)
    assert out.exit_code == -9
    assert not out.ok
    assert out.text.endswith("exit code: -9")


async def test_stderr_is_separate(ctx):
    out = await bash.run({"command": "echo out; echo err >&2"}, ctx)
    assert out.text == "out\nstderr:\nerr\nexit code: 0"


async def test_no_output(ctx):
    out = await bash.run({"command": "true"}, ctx)
    assert out.text == "(no output)\nexit code: 0"


async def test_stdout_cap_keeps_head_and_tail(ctx):
    total = 200_000
    cmd = f"echo START; head -c {total} /dev/zero | tr '\\0' a; echo; echo END"
    out = await bash.run({"command": cmd}, ctx)
    emitted = len("START\n") + total + len("\nEND\n")
    assert out.meta["stdout_bytes"] == emitted
    assert f"[... {emitted - STDOUT_CAP} bytes cut ...]" in out.text
    assert out.text.startswith("START\n")
    assert "END\nexit code: 0" in out.text
    assert len(out.text) < STDOUT_CAP + 200


async def test_stderr_cap(ctx):
    out = await bash.run({"command": "head -c 50000 /dev/zero | tr '\\0' e >&2"}, ctx)
    assert f"[... {50000 - STDERR_CAP} bytes cut ...]" in out.text
    assert out.text.startswith("stderr:\n")


async def test_huge_output_is_streamed_not_buffered(ctx):
    # 50 MB: the count is exact, the text stays at the cap.
    out = await bash.run({"command": "yes | head -c 50000000"}, ctx)
    assert out.meta["stdout_bytes"] == 50_000_000
    assert f"[... {50_000_000 - STDOUT_CAP} bytes cut ...]" in out.text
    assert len(out.text) < STDOUT_CAP + 200


async def test_output_is_decoded_with_replacement(ctx):
    out = await bash.run({"command": "printf 'a\\xffb\\n'"}, ctx)
    assert out.text.startswith("a\ufffdb")


async def test_timeout_kills_the_whole_group(tmp_path):
    ctx = ToolContext(workspace=tmp_path, bash_timeout_default_s=1.0, sandbox_mode="off")
    cmd = "sleep 100 & echo $! > child.pid; sleep 100"
    started = time.monotonic()
    out = await bash.run({"command": cmd}, ctx)
    assert time.monotonic() - started < 5
    assert "timed out after 1 s" in out.text
    assert out.meta["timed_out"] and not out.ok
    assert out.exit_code is not None and out.exit_code < 0
    child = int((tmp_path / "child.pid").read_text())
    assert await wait_gone(child)
    assert ctx.running_pids == set()


async def test_timeout_keeps_output_so_far(ctx):
    out = await bash.run({"command": "echo before; sleep 100", "timeout_s": 1}, ctx)
    assert out.text.startswith("before\n")
    assert "timed out after 1 s" in out.text


async def test_timeout_is_clamped_to_the_maximum(tmp_path):
    ctx = ToolContext(workspace=tmp_path, bash_timeout_max_s=1.0)
    out = await bash.run({"command": "sleep 100", "timeout_s": 500}, ctx)
    assert "timeout_s 500 is above the maximum; clamped to 1 s" in out.text
    assert "timed out after 1 s" in out.text
    assert out.meta["timeout_s"] == 1.0


async def test_cancellation_kills_the_group(host_ctx, tmp_path):
    ctx = host_ctx
    cmd = "sleep 100 & echo $! > child.pid; echo $$ > shell.pid; sleep 100"
    task = asyncio.create_task(bash.run({"command": cmd}, ctx))
    child = int(await wait_for_file(tmp_path / "child.pid"))
    shell = int(await wait_for_file(tmp_path / "shell.pid"))
    assert ctx.running_pids == {shell}
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(child)
    assert await wait_gone(shell)
    assert ctx.running_pids == set()


async def test_session_can_kill_a_running_command(ctx, tmp_path):
    # What the session's interrupt does: kill every group in running_pids.
    task = asyncio.create_task(bash.run({"command": "echo $$ > shell.pid; sleep 100"}, ctx))
    await wait_for_file(tmp_path / "shell.pid")
    for pid in list(ctx.running_pids):
        await terminate_group(pid, KILL_GRACE_S)
    out = await asyncio.wait_for(task, 30)  # the sandbox's teardown is slow on a busy machine
    assert out.exit_code == -15


async def test_terminate_group_on_finished_group_is_harmless():
    proc = await asyncio.create_subprocess_exec("true", start_new_session=True)
    await proc.wait()
    await terminate_group(proc.pid, KILL_GRACE_S)


async def test_lingering_background_child_is_stopped(host_ctx, tmp_path):
    ctx = host_ctx
    cmd = "sleep 100 & echo $! > child.pid; echo started"
    started = time.monotonic()
    out = await bash.run({"command": cmd}, ctx)
    assert time.monotonic() - started < 5
    assert out.exit_code == 0
    assert out.text.startswith("started\n")
    assert "background processes still held the output" in out.text
    assert await wait_gone(int((tmp_path / "child.pid").read_text()))


async def test_redirected_background_child_is_left_running(host_ctx, tmp_path):
    ctx = host_ctx
    out = await bash.run({"command": "sleep 100 > /dev/null 2>&1 & echo $! > child.pid"}, ctx)
    assert out.exit_code == 0 and "background" not in out.text
    child = int((tmp_path / "child.pid").read_text())
    assert alive(child)
    os.kill(child, signal.SIGKILL)  # tidy up
    assert await wait_gone(child)


async def test_stdin_is_closed(ctx):
    started = time.monotonic()
    out = await bash.run({"command": "cat", "timeout_s": 5}, ctx)
    assert out.exit_code == 0 and not out.meta["timed_out"]
    assert time.monotonic() - started < 3


async def test_environment(ctx):
    out = await bash.run({"command": "echo $CI $PAGER $GIT_PAGER $TERM $GIT_TERMINAL_PROMPT"}, ctx)
    assert out.text.startswith("1 cat cat dumb 0\n")


async def test_runs_in_cwd(ctx, tmp_path):
    out = await bash.run({"command": "pwd"}, ctx)
    assert out.text.splitlines()[0] == str(tmp_path.resolve())


async def test_cd_persists(ctx, tmp_path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    out = await bash.run({"command": "  cd sub  "}, ctx)
    assert out.text == "cwd is now sub" and out.ok
    assert ctx.cwd == (tmp_path / "sub").resolve()
    out = await bash.run({"command": "pwd"}, ctx)
    assert out.text.splitlines()[0] == str((tmp_path / "sub").resolve())
    out = await bash.run({"command": "cd deeper"}, ctx)
    assert out.text == "cwd is now sub/deeper"
    out = await bash.run({"command": "cd"}, ctx)
    assert out.text == "cwd is now ."
    assert ctx.cwd == tmp_path.resolve()


async def test_cd_with_quotes(ctx, tmp_path):
    (tmp_path / "my dir").mkdir()
    out = await bash.run({"command": "cd 'my dir'"}, ctx)
    assert out.text == "cwd is now my dir"


@pytest.mark.parametrize("target", ["..", "/etc", "~"])
async def test_cd_outside_workspace_is_refused(ctx, tmp_path, target):
    with pytest.raises(ToolError, match="outside the workspace"):
        await bash.run({"command": f"cd {target}"}, ctx)
    assert ctx.cwd == tmp_path.resolve()


async def test_cd_into_a_symlink_loop_or_a_too_long_name_is_refused(ctx, tmp_path):
    (tmp_path / "loop").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop")
    for target, reason in (("loop", "symlink loop"), ("loop2/x", "symlink loop"),
                           ("d" * 300, "too long")):
        with pytest.raises(ToolError, match=reason):
            await bash.run({"command": f"cd {target}"}, ctx)
    assert ctx.cwd == tmp_path.resolve()


async def test_cd_to_missing_or_file_is_refused(ctx, tmp_path):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ToolError, match="no such directory"):
        await bash.run({"command": "cd missing"}, ctx)
    with pytest.raises(ToolError, match="not a directory"):
        await bash.run({"command": "cd file.txt"}, ctx)
    with pytest.raises(ToolError, match="literal directory"):
        await bash.run({"command": "cd $HOME"}, ctx)


async def test_compound_cd_runs_in_a_shell_and_does_not_persist(ctx, tmp_path):
    (tmp_path / "sub").mkdir()
    out = await bash.run({"command": "cd sub && pwd"}, ctx)
    assert out.text.splitlines()[0] == str((tmp_path / "sub").resolve())
    assert ctx.cwd == tmp_path.resolve()


async def test_deleted_cwd_is_reported(ctx, tmp_path):
    (tmp_path / "gone").mkdir()
    await bash.run({"command": "cd gone"}, ctx)
    (tmp_path / "gone").rmdir()
    with pytest.raises(ToolError, match="no longer exists"):
        await bash.run({"command": "ls"}, ctx)


def test_parse_cd():
    assert parse_cd("cd") == ""
    assert parse_cd(" cd src ") == "src"
    assert parse_cd("cd 'a b'") == "a b"
    assert parse_cd("cd a && ls") is None
    assert parse_cd("cd a;ls") is None
    assert parse_cd("cd a b") is None
    assert parse_cd("cdx") is None
    assert parse_cd("echo cd") is None


def test_precheck(ctx):
    req = bash.precheck({"command": "ls -la"}, ctx)
    assert (req.tool, req.kind, req.command) == ("bash", "exec", "ls -la")
    assert bash.precheck({"command": "ls", "timeout_s": "5"}, ctx).command == "ls"
    for bad, message in (({}, "missing required argument 'command'"),
                         ({"command": " \n "}, "argument 'command' must not be empty"),
                         ({"command": 3}, "argument 'command' must be a str")):
        with pytest.raises(ToolError, match=message):
            bash.precheck(bad, ctx)
    for timeout in (-1, 0, "abc", True, float("inf")):
        with pytest.raises(ToolError, match="timeout_s"):
            bash.precheck({"command": "ls", "timeout_s": timeout}, ctx)


async def test_preview_is_none(ctx):
    assert await bash.preview({"command": "ls"}, ctx) is None
