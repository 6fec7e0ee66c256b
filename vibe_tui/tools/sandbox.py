"""The command sandbox: bubblewrap around every shell command.

Inside, the root file system is read-only, the workspace is writable except its ``.git``
(and ``.vibe``) folder, ``/tmp`` is private and empty, ``/proc`` and ``/dev`` are fresh,
there is no network unless the config allows it, and the command's processes live in
their own PID namespace and session, so they die with the sandbox (``--die-with-parent``)
and cannot push keys into the user's terminal (``--new-session``, CVE-2017-5226).

Where bubblewrap is missing or cannot start (no user namespaces, a container without
the rights), commands do not quietly run on the host: the bash tool refuses until the user
opts in with ``--no-sandbox``, ``VIBE_TUI_ALLOW_HOST=1`` or ``allow_host = true``.

The sandbox limits the damage of a mistake; the policy still decides what needs a person.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from vibe_tui.tools.base import ToolContext

SandboxKind = Literal["bubblewrap", "host", "unavailable"]

ALLOW_HOST_ENV = "VIBE_TUI_ALLOW_HOST"
# Which bubblewrap to use; tests point it at a missing file to see the refusal.
BWRAP_ENV = "VIBE_TUI_BWRAP"
PROBE_TIMEOUT_S = 10.0
# Folders of the workspace that stay read-only inside: git runs hooks and configured
# programs from .git outside any approval, and .vibe holds this project's permission rules.
READ_ONLY_NAMES = (".git", ".vibe")

HOW_TO_OPT_IN = (
    "To run commands on the host with your own user's rights instead, start vibe-tui with "
    "--no-sandbox, or set VIBE_TUI_ALLOW_HOST=1, or put allow_host = true under [sandbox] "
    "in config.toml.")


@dataclass(frozen=True)
class SandboxState:
    kind: SandboxKind
    detail: str  # in words for the user: what is in force and why


_probed: dict[str, SandboxState] = {}


def bwrap_binary() -> str:
    override = os.environ.get(BWRAP_ENV)
    if override:
        return override
    return shutil.which("bwrap") or "bwrap"


def _probe_argv(binary: str) -> list[str]:
    # The same namespaces and mounts a real command gets, around `true`.
    return [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--unshare-net", "--unshare-pid", "--die-with-parent",
            "--new-session", "--", "true"]


def _verdict(binary: str, returncode: int | None, stderr: bytes, missing: bool) -> SandboxState:
    if missing:
        return SandboxState("unavailable", f"bubblewrap is not installed ({binary} not found)")
    if returncode == 0:
        return SandboxState("bubblewrap", "commands run in a bubblewrap sandbox")
    message = stderr.decode("utf-8", "replace").strip().splitlines()
    why = message[-1] if message else f"exit code {returncode}"
    return SandboxState("unavailable", f"bubblewrap cannot start here: {why}")


def probe(binary: str | None = None) -> SandboxState:
    """Can bubblewrap start here? Tried once per binary and cached. This one blocks for a
    few milliseconds: call it at startup (status views, the system prompt); running code
    uses ``probe_async``."""
    binary = binary or bwrap_binary()
    if binary not in _probed:
        try:
            done = subprocess.run(_probe_argv(binary), stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=PROBE_TIMEOUT_S)
            _probed[binary] = _verdict(binary, done.returncode, done.stderr, False)
        except (FileNotFoundError, PermissionError):
            _probed[binary] = _verdict(binary, None, b"", True)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _probed[binary] = SandboxState("unavailable", f"bubblewrap cannot start here: {exc}")
    return _probed[binary]


async def probe_async(binary: str | None = None) -> SandboxState:
    """``probe`` without blocking the event loop."""
    binary = binary or bwrap_binary()
    if binary in _probed:
        return _probed[binary]
    try:
        process = await asyncio.create_subprocess_exec(
            *_probe_argv(binary), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    except (FileNotFoundError, PermissionError):
        state = _verdict(binary, None, b"", True)
    except OSError as exc:
        state = SandboxState("unavailable", f"bubblewrap cannot start here: {exc}")
    else:
        try:
            _, stderr = await asyncio.wait_for(process.communicate(), PROBE_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            state = SandboxState("unavailable", "bubblewrap did not start in time")
        else:
            state = _verdict(binary, process.returncode, stderr, False)
    return _probed.setdefault(binary, state)


def host_allowed(ctx: ToolContext) -> bool:
    return ctx.allow_host or os.environ.get(ALLOW_HOST_ENV, "") not in ("", "0")


def _in_force(ctx: ToolContext, bwrap: SandboxState) -> SandboxState:
    if ctx.sandbox_mode == "off":
        return SandboxState("host", "the sandbox is off: commands run on the host with your "
                                    "user's rights")
    if bwrap.kind == "bubblewrap":
        network = "with network access" if ctx.sandbox_network else "without network access"
        return SandboxState("bubblewrap", f"commands run in a bubblewrap sandbox {network}")
    if host_allowed(ctx):
        return SandboxState("host", f"{bwrap.detail}; commands run on the host with your "
                                    "user's rights, as you allowed")
    return bwrap


def in_force(ctx: ToolContext) -> SandboxState:
    """What commands of this session run under: the sandbox, the host, or nothing (when
    bubblewrap cannot start and the user has not opted in to the host)."""
    if ctx.sandbox_mode == "off":
        return _in_force(ctx, SandboxState("unavailable", "not probed"))
    return _in_force(ctx, probe())


def known_in_force(ctx: ToolContext) -> SandboxState | None:
    """``in_force`` when it needs no probe (or the probe has run): None otherwise."""
    if ctx.sandbox_mode == "off":
        return in_force(ctx)
    bwrap = _probed.get(bwrap_binary())
    return None if bwrap is None else _in_force(ctx, bwrap)


async def in_force_async(ctx: ToolContext) -> SandboxState:
    if ctx.sandbox_mode == "off":
        return _in_force(ctx, SandboxState("unavailable", "not probed"))
    return _in_force(ctx, await probe_async())


def refusal(state: SandboxState) -> str:
    """What the bash tool says, to the model and the user, when nothing may run."""
    return (f"Command not run: {state.detail}, and commands do not run outside the sandbox "
            f"unless you allow it. {HOW_TO_OPT_IN}")


def wrap(argv: list[str], ctx: ToolContext, *, network: bool,
         info_fd: int | None = None) -> list[str]:
    """The bubblewrap command line that runs ``argv`` in ``ctx.cwd`` inside the sandbox.
    With ``info_fd`` (the write end of a pipe passed to the process), bubblewrap reports
    the sandbox's init there: read it with ``started`` to be able to ``kill`` it.

    Order matters: bubblewrap applies mounts in turn, so the private /tmp comes before
    the workspace (which may live under /tmp) and the read-only .git after it."""
    workspace = str(ctx.workspace)
    cwd = str(ctx.cwd or ctx.workspace)
    command = [bwrap_binary(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--tmpfs", "/tmp", "--bind", workspace, workspace]
    for name in READ_ONLY_NAMES:
        inner = ctx.workspace / name
        if inner.exists():  # follows a link: the target is what gets protected
            command += ["--ro-bind", str(inner), str(inner)]
    if not network:
        command.append("--unshare-net")
    if info_fd is not None:
        command += ["--info-fd", str(info_fd)]
    command += ["--unshare-pid", "--die-with-parent", "--new-session", "--chdir", cwd,
                "--", *argv]
    return command


@dataclass(frozen=True)
class Sandboxed:
    """A running sandbox's init (PID 1 inside): when it dies, the kernel kills every
    process in the sandbox. Killing bubblewrap itself is not enough: the init runs in a
    session of its own (--new-session), and --die-with-parent does not always fire when
    bubblewrap is signalled rather than its parent dying."""

    pid: int
    pid_namespace: int

    def kill(self) -> None:
        """SIGKILL the init, if that PID is still our sandbox's (PIDs are reused)."""
        try:
            if os.readlink(f"/proc/{self.pid}/ns/pid") != f"pid:[{self.pid_namespace}]":
                return
            os.kill(self.pid, signal.SIGKILL)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            return  # gone already


def _read_to_end(fd: int) -> bytes:
    with os.fdopen(fd, "rb") as pipe:
        return pipe.read()


async def started(info_read_fd: int) -> Sandboxed | None:
    """The init bubblewrap reported on --info-fd (the read end is closed here); None when
    bubblewrap failed before starting one. bubblewrap writes and closes its end right
    after the start, and never passes it to the command, so this returns at once."""
    data = await asyncio.to_thread(_read_to_end, info_read_fd)
    try:
        info = json.loads(data)
        return Sandboxed(int(info["child-pid"]), int(info["pid-namespace"]))
    except (ValueError, KeyError, TypeError):
        return None


def describe_for_model(state: SandboxState, *, network: bool = False) -> str | None:
    """A sentence for the system prompt, only when commands really are sandboxed."""
    if state.kind != "bubblewrap":
        return None
    reach = ("Network access is allowed." if network else
             "There is no network access, so downloads, installs and git push fail.")
    return ("Your shell commands run in a sandbox: the file system is read-only except the "
            "workspace, the workspace's .git folder is read-only (so git commit and other "
            "commands that write .git fail), /tmp is private and starts empty, and background "
            f"processes end with the command. {reach} When a command fails for one of these "
            "reasons, tell the user which command to run themselves instead of working "
            "around the sandbox.")


def workspace_has_read_only(ctx: ToolContext) -> list[Path]:
    """The workspace folders the sandbox keeps read-only (for /sandbox to show)."""
    return [ctx.workspace / n for n in READ_ONLY_NAMES if (ctx.workspace / n).exists()]
