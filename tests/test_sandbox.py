"""The bubblewrap sandbox around the bash tool, with real processes and files.

Tests that need bubblewrap skip (with the reason) only where it cannot start; the
refusal path simulates a missing bubblewrap by pointing the probe at a missing binary.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine_helpers import wait_until
from vibe_tui.tools import sandbox
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.shell import BashTool

bash = BashTool()
STATE = sandbox.probe()
needs_bwrap = pytest.mark.skipif(STATE.kind != "bubblewrap", reason=STATE.detail)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    return root


@pytest.fixture
def ctx(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> ToolContext:
    monkeypatch.delenv(sandbox.ALLOW_HOST_ENV, raising=False)
    return ToolContext(workspace=workspace)


@pytest.fixture
def host_folder() -> Iterator[Path]:
    """A folder the host may write, outside /tmp (which the sandbox replaces anyway)."""
    folder = Path(tempfile.mkdtemp(prefix="vibe-sandbox-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def processes_with(marker: str) -> list[int]:
    """Host PIDs of live processes whose command line is ``marker`` (sandboxed ones
    included); bubblewrap and bash, whose command lines merely contain it, do not count."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().rstrip(b"\0").replace(b"\0", b" ")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if cmdline.decode() == marker and state != "Z":
            found.append(int(entry.name))
    return found


def processes_mentioning(marker: str) -> list[int]:
    """Host PIDs of live processes whose command line contains ``marker`` anywhere:
    the sleeps, and the bubblewrap and bash processes that carry it in their arguments."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, PermissionError, NotADirectoryError):
            continue
        if entry.name.isdigit() and marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def unique_sleep() -> str:
    """A sleep whose command line no other process has, to find it from the host."""
    return f"sleep {1000 + uuid.uuid4().int % 9000}.{uuid.uuid4().int % 1000:03d}"


# -- the command line ------------------------------------------------------------------


def test_wrap_builds_the_documented_command_line(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    ctx.cwd = workspace / "sub"
    argv = sandbox.wrap(["bash", "-c", "ls"], ctx, network=False)
    joined = " ".join(argv)
    assert argv[0].endswith("bwrap")
    assert "--ro-bind / /" in joined
    assert f"--bind {workspace} {workspace}" in joined
    assert f"--ro-bind-try {workspace / '.git'} {workspace / '.git'}" in joined
    # Mount order: private /tmp first (the workspace may be under /tmp), then the
    # workspace, then its read-only .git on top.
    assert joined.index("--tmpfs /tmp") < joined.index("--bind ") < joined.index(
        f"--ro-bind-try {workspace / '.git'}")
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session",
                 "--proc /proc", "--dev /dev", f"--chdir {workspace / 'sub'}",
                 "--unshare-user", "--cap-drop ALL", "--unshare-ipc"):
        assert flag in joined
    assert argv[argv.index("--uid") + 1] != "0"
    assert argv[-4:] == ["--", "bash", "-c", "ls"]


def test_wrap_with_network_and_without_git(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path)
    argv = sandbox.wrap(["true"], ctx, network=True)
    assert "--unshare-net" not in argv
    assert not any(".git" in a for a in argv)


def test_describe_for_model_only_when_sandboxed() -> None:
    assert sandbox.describe_for_model(sandbox.SandboxState("host", "x")) is None
    assert sandbox.describe_for_model(sandbox.SandboxState("unavailable", "x")) is None
    sentence = sandbox.describe_for_model(sandbox.SandboxState("bubblewrap", "x"))
    assert sentence is not None and "sandbox" in sentence and "no network" in sentence
    with_net = sandbox.describe_for_model(sandbox.SandboxState("bubblewrap", "x"), network=True)
    assert with_net is not None and "Network access is allowed" in with_net


# -- inside the sandbox ----------------------------------------------------------------


@needs_bwrap
async def test_the_workspace_is_writable(ctx: ToolContext, workspace: Path) -> None:
    out = await bash.run({"command": "echo hi > made.txt && mkdir -p d/e && touch d/e/f"}, ctx)
    assert out.exit_code == 0, out.text
    assert (workspace / "made.txt").read_text() == "hi\n"
    assert (workspace / "d" / "e" / "f").exists()


@needs_bwrap
async def test_cannot_write_outside_the_workspace(ctx: ToolContext, host_folder: Path) -> None:
    target = host_folder / "escaped.txt"
    out = await bash.run({"command": f"echo x > {target}"}, ctx)
    assert out.exit_code != 0
    assert "Read-only file system" in out.text
    assert not target.exists()
    # The control: the same folder is writable from the host, so the refusal is the sandbox.
    target.write_text("host")
    assert target.read_text() == "host"


@needs_bwrap
async def test_tmp_is_private(ctx: ToolContext) -> None:
    name = f"/tmp/vibe-sandbox-{uuid.uuid4().hex}"
    out = await bash.run({"command": f"echo secret > {name} && cat {name} && ls /tmp"}, ctx)
    assert out.exit_code == 0 and out.text.startswith("secret\n")
    assert not Path(name).exists()


@needs_bwrap
async def test_cannot_write_git_settings(ctx: ToolContext, workspace: Path) -> None:
    config = workspace / ".git" / "config"
    for command in ("echo '[core] fsmonitor = evil' >> .git/config",
                    "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
                    "rm -rf .git"):
        out = await bash.run({"command": command}, ctx)
        assert out.exit_code != 0, command
    assert config.read_text() == "[core]\n"
    assert not (workspace / ".git" / "hooks").exists()


@needs_bwrap
async def test_cannot_open_a_network_connection(ctx: ToolContext) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        command = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        out = await bash.run({"command": command}, ctx)
        assert out.exit_code != 0 and "connected" not in out.text
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked
        # The control: with network allowed, the same command reaches the listener.
        ctx.sandbox_network = True
        out = await bash.run({"command": command}, ctx)
        assert out.exit_code == 0 and "connected" in out.text
        accepted, _ = listener.accept()
        accepted.close()


@needs_bwrap
async def test_background_children_die_with_the_command(ctx: ToolContext) -> None:
    sleeper = unique_sleep()
    out = await bash.run({"command": f"{sleeper} & echo started"}, ctx)
    assert out.exit_code == 0 and out.text.startswith("started")
    await wait_until(lambda: not processes_mentioning(sleeper), timeout=5)


@needs_bwrap
async def test_children_die_on_timeout(ctx: ToolContext) -> None:
    sleeper = unique_sleep()
    task = asyncio.create_task(
        bash.run({"command": f"{sleeper} & {sleeper}", "timeout_s": 1}, ctx))
    await wait_until(lambda: len(processes_with(sleeper)) == 2, timeout=5)
    out = await asyncio.wait_for(task, 10)
    assert out.meta["timed_out"]
    await wait_until(lambda: not processes_mentioning(sleeper), timeout=5)
    assert ctx.running_pids == set()


@needs_bwrap
async def test_children_die_when_interrupted(ctx: ToolContext) -> None:
    sleeper = unique_sleep()
    task = asyncio.create_task(bash.run({"command": f"{sleeper} & {sleeper}"}, ctx))
    await wait_until(lambda: len(processes_with(sleeper)) == 2, timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_until(lambda: not processes_mentioning(sleeper), timeout=5)


@needs_bwrap
@pytest.mark.parametrize("after_s", [0, 0.002, 0.01])
async def test_nothing_survives_an_interrupt_while_the_sandbox_starts(
        ctx: ToolContext, after_s: float) -> None:
    """Killed halfway through its start, bubblewrap could leave its init (and the
    command) behind before --die-with-parent is armed; the start is seen through."""
    sleeper = unique_sleep()
    task = asyncio.create_task(bash.run({"command": f"{sleeper} & {sleeper}"}, ctx))
    await asyncio.sleep(after_s)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_until(lambda: not processes_mentioning(sleeper), timeout=5)


@needs_bwrap
async def test_processes_get_their_own_pid_namespace(ctx: ToolContext) -> None:
    out = await bash.run({"command": "echo $$; ls /proc | grep -c '^[0-9]'"}, ctx)
    shell_pid, visible = (int(x) for x in out.text.splitlines()[:2])
    assert shell_pid < 10 and visible < 10  # the host's processes are not there


@needs_bwrap
async def test_cd_persists_inside_the_sandbox(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "sub" / "deeper").mkdir(parents=True)
    moved = await bash.run({"command": "cd sub"}, ctx)
    assert moved.meta["cwd"] == "sub"
    out = await bash.run({"command": "pwd && touch here"}, ctx)
    assert out.text.splitlines()[0] == str(workspace / "sub")
    assert (workspace / "sub" / "here").exists()
    await bash.run({"command": "cd deeper"}, ctx)
    out = await bash.run({"command": "pwd"}, ctx)
    assert out.text.splitlines()[0] == str(workspace / "sub" / "deeper")


@needs_bwrap
async def test_in_force_reports_the_sandbox(ctx: ToolContext) -> None:
    state = await sandbox.in_force_async(ctx)
    assert state.kind == "bubblewrap" and "without network" in state.detail
    assert sandbox.in_force(ctx) == state


# -- without bubblewrap ----------------------------------------------------------------


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(tmp_path / "missing" / "bwrap"))


async def test_without_bubblewrap_commands_are_refused(no_bwrap, ctx: ToolContext,
                                                       workspace: Path) -> None:
    state = await sandbox.in_force_async(ctx)
    assert state.kind == "unavailable" and "not installed" in state.detail
    with pytest.raises(ToolError) as refused:
        await bash.run({"command": "touch made"}, ctx)
    message = str(refused.value)
    for how in ("--no-sandbox", "VIBE_TUI_ALLOW_HOST=1", "allow_host"):
        assert how in message
    assert not (workspace / "made").exists()


@pytest.mark.parametrize("opt_in", ["config", "env", "no-sandbox"])
async def test_without_bubblewrap_an_opt_in_runs_on_the_host(
        no_bwrap, ctx: ToolContext, workspace: Path, monkeypatch: pytest.MonkeyPatch,
        opt_in: str) -> None:
    if opt_in == "config":
        ctx.allow_host = True
    elif opt_in == "env":
        monkeypatch.setenv(sandbox.ALLOW_HOST_ENV, "1")
    else:
        ctx.sandbox_mode = "off"
    state = await sandbox.in_force_async(ctx)
    assert state.kind == "host" and "your user's rights" in state.detail
    out = await bash.run({"command": "touch made && echo $$"}, ctx)
    assert out.exit_code == 0
    assert (workspace / "made").exists()
    assert int(out.text.splitlines()[0]) > 1  # a host PID: no namespace of its own
    assert sandbox.describe_for_model(state) is None


async def test_a_failing_bubblewrap_is_unavailable_too(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(fake))
    state = await sandbox.probe_async()
    assert state.kind == "unavailable"
    assert "No permissions to create new namespace" in state.detail
    assert sandbox.probe(str(fake)) == state  # cached, one try per binary
    assert os.access(fake, os.X_OK)
