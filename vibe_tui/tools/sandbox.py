"""The command sandbox: bubblewrap around every shell command.

What a command inside can and cannot do, whoever runs vibe-tui (root included):

- It runs in a new user namespace with no capabilities, as an ordinary user (the
  invoking user's id, or ``nobody`` when that is root), and cannot make further user
  namespaces: it cannot mount, unmount or remount anything, so the read-only parts stay
  read-only and the host's namespaces stay out of reach.
- The root file system is read-only; the workspace is writable except every git folder in
  it (``vibe_tui.tools.git_dirs``) and the files that make programs run later
  (``.vibe``, ``.vscode``, ``.envrc``... at its top level; ``vibe_tui.policy.protected``).
- Secrets are hidden: ``~/.ssh``, cloud and registry credentials, vibe-tui's own
  credentials file (``SECRET_PATHS`` plus ``[sandbox] hide``) read as empty, and the
  sockets of host daemons under ``/run`` (Docker, D-Bus, the user's agents) are not there.
  The environment loses its keys and tokens (``vibe_tui.tools.environment``).
- ``/tmp`` is private and empty, ``/proc`` and ``/dev`` are fresh, there is no network
  unless the config allows it, and the command's processes live in their own PID, IPC and
  UTS namespaces and session, so they die with the sandbox (``--die-with-parent``) and
  cannot push keys into the user's terminal (``--new-session``, CVE-2017-5226).

It does not hide the rest of the host's files from reading.

Where bubblewrap is missing or cannot start (no user namespaces, a container without
the rights), commands do not quietly run on the host or in a weaker sandbox: the bash
tool refuses, saying why, until the user opts in with ``--no-sandbox``,
``VIBE_TUI_ALLOW_HOST=1`` or ``allow_host = true``.

The sandbox limits the damage of a mistake; the policy still decides what needs a person.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from vibe_tui.config.credentials import credentials_path
from vibe_tui.config.paths import data_dir
from vibe_tui.policy.protected import PROTECTED_FOLDERS, folded, protected_reason
from vibe_tui.policy.rules import outside_target, parse_rule, path_matches
from vibe_tui.tools.base import ToolContext

SandboxKind = Literal["bubblewrap", "host", "unavailable"]

ALLOW_HOST_ENV = "VIBE_TUI_ALLOW_HOST"
# Which bubblewrap to use; tests point it at a missing file to see the refusal.
BWRAP_ENV = "VIBE_TUI_BWRAP"
PROBE_TIMEOUT_S = 10.0
# Inside, root is nobody: the invoking user keeps their own id, root becomes this one.
NOBODY = 65534
# Files and folders that hold the user's secrets, hidden inside (read as empty).
SECRET_PATHS = (
    "~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube",
    "~/.docker/config.json", "~/.netrc", "~/.git-credentials", "~/.config/git/credentials",
    "~/.npmrc", "~/.pypirc", "~/.cargo/credentials",
    "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.m2/settings.xml",
    "~/.config/gh", "~/.config/hub", "~/.password-store", "~/.vault-token",
    "~/.terraform.d/credentials.tfrc.json", "~/.local/share/keyrings",
    "~/.config/op", "~/.mozilla", "~/.config/google-chrome", "~/.config/chromium",
)
# Where host daemons keep their sockets: a socket on a read-only file system still
# answers, and Docker's is root on the host.
SOCKET_FOLDERS = ("/run", "/var/run")
_SOCKET_SCAN_LIMIT = 5000

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


def _namespaces(binary: str) -> list[str]:
    """A user namespace with no capabilities and an ordinary id, the other namespaces
    fresh. No ``-try`` variants for what the guarantees rest on: where a user namespace
    cannot be made, bubblewrap fails and the probe says so."""
    uid, gid = os.getuid(), os.getgid()
    flags = ["--unshare-user", "--uid", str(uid or NOBODY), "--gid", str(gid or NOBODY)]
    if _knows(binary, "--disable-userns"):
        flags.append("--disable-userns")
    return [*flags, "--cap-drop", "ALL", "--unshare-ipc", "--unshare-uts", "--unshare-pid",
            "--unshare-cgroup-try"]


_known_flags: dict[str, str] = {}


def _knows(binary: str, flag: str) -> bool:
    """Whether this bubblewrap has ``flag`` (``--disable-userns`` came in 0.8)."""
    if binary not in _known_flags:
        try:
            done = subprocess.run([binary, "--help"], capture_output=True, text=True,
                                  timeout=PROBE_TIMEOUT_S)
            _known_flags[binary] = done.stdout + done.stderr
        except (OSError, subprocess.TimeoutExpired):
            _known_flags[binary] = ""
    return flag in _known_flags[binary]


def _probe_argv(binary: str) -> list[str]:
    # The same namespaces and mounts a real command gets, around `true`.
    return [binary, *_namespaces(binary), "--ro-bind", "/", "/", "--dev", "/dev",
            "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-net", "--die-with-parent",
            "--new-session", "--", "true"]


def _verdict(binary: str, returncode: int | None, stderr: bytes, missing: bool) -> SandboxState:
    if missing:
        return SandboxState("unavailable", f"bubblewrap is not installed ({binary} not found)")
    if returncode == 0:
        return SandboxState("bubblewrap", "commands run in a bubblewrap sandbox")
    message = stderr.decode("utf-8", "replace").strip().splitlines()
    why = message[-1] if message else f"exit code {returncode}"
    return SandboxState("unavailable", f"bubblewrap cannot start here ({why}); it needs a "
                                       "user namespace, which this machine does not allow")


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
    the sandbox's init there: read it with ``started`` to be able to ``kill`` it. The
    workspace's git folders are those ``ctx.git_dirs`` last found (``refresh`` it first).

    Order matters: bubblewrap applies mounts in turn, so the private /tmp comes before
    the workspace (which may live under /tmp), the read-only folders after it, and the
    hidden secrets last."""
    binary = bwrap_binary()
    workspace = str(ctx.workspace)
    cwd = str(ctx.cwd or ctx.workspace)
    command = [binary, *_namespaces(binary), "--ro-bind", "/", "/", "--dev", "/dev",
               "--proc", "/proc", "--tmpfs", "/tmp", "--bind", workspace, workspace]
    for path in read_only_in(ctx):
        command += ["--ro-bind-try", path, path]
    secrets = hidden(ctx)
    empty = empty_file() if any(not is_folder for _, is_folder in secrets) else None
    for path, is_folder in secrets:
        command += ["--tmpfs", path] if is_folder else ["--ro-bind-try", str(empty), path]
    if not network:
        command.append("--unshare-net")
    if info_fd is not None:
        command += ["--info-fd", str(info_fd)]
    command += ["--die-with-parent", "--new-session", "--chdir", cwd, "--", *argv]
    return command


def empty_file() -> Path:
    """An empty read-only file to mount over a hidden one. Not /dev/null: a device node
    opens only where devices are allowed, and inside a user namespace the workspace's
    mount is not such a place (reading a hidden file would fail rather than be empty)."""
    path = data_dir() / "sandbox" / "empty"
    if not path.is_file() or path.stat().st_size:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        path.chmod(0o444)
    return path


def read_only_in(ctx: ToolContext) -> list[str]:
    """The workspace's paths that commands may not write: its git folders, then the
    files at its top level that make programs run later."""
    paths = list(ctx.git_dirs.read_only()) if ctx.git_dirs is not None else []
    if ctx.git_dirs is None and os.path.lexists(ctx.workspace / ".git"):
        paths.append(str(ctx.workspace / ".git"))
    try:
        names = sorted(os.listdir(ctx.workspace))
    except OSError:
        names = []
    for name in names:
        if protected_reason([name]) is not None or folded(name) in PROTECTED_FOLDERS:
            paths.append(str(ctx.workspace / name))
    workflows = ctx.workspace / ".github" / "workflows"
    if workflows.is_dir():
        paths.append(str(workflows))
    return list(dict.fromkeys(paths))


def hidden(ctx: ToolContext) -> list[tuple[str, bool]]:
    """(path, is a folder) of each secret that exists here, links followed; never one
    that holds the workspace, which the command needs."""
    found: dict[str, bool] = {}
    workspace = os.path.realpath(ctx.workspace)
    for raw in (*SECRET_PATHS, *ctx.hide_paths, str(credentials_path())):
        real = os.path.realpath(os.path.expanduser(raw))
        if not os.path.lexists(real) or _holds(real, workspace) or _holds("/tmp", real):
            continue
        found[real] = os.path.isdir(real)
    for socket_path in host_sockets():
        found.setdefault(socket_path, False)
    for denied in denied_reads(ctx):
        found.setdefault(denied, os.path.isdir(denied))
    return sorted(found.items())


def denied_reads(ctx: ToolContext) -> list[str]:
    """The existing files and folders the session's ``Read(...)`` deny rules name, so that
    no command reads them, however it spells them (``python -c "open('.env')"``): the
    policy reads a command's words, the sandbox holds for what the words do not show."""
    found: list[str] = []
    in_workspace = []
    for text in ctx.read_deny:
        try:
            rule = parse_rule(text)
        except ValueError:
            continue
        if rule.tool_family != "Read" or rule.specifier is None:
            continue
        outside = outside_target(rule.specifier, ctx.workspace)
        if outside is not None:
            if os.path.lexists(outside):
                found.append(os.path.realpath(outside))
        else:
            in_workspace.append(rule.specifier)
    if in_workspace:
        found += _workspace_matches(ctx.workspace, in_workspace)
    return found


_MAX_DENY_WALK = 100_000


def _workspace_matches(workspace: Path, specifiers: list[str]) -> list[str]:
    """Paths in the workspace (links followed to their targets) the specifiers cover; a
    folder that matches is hidden whole and not walked. Bounded: past the bound, the
    policy's reading of each command's words is what holds."""
    found, seen = [], 0
    for folder, subfolders, files in os.walk(workspace):
        subfolders[:] = [d for d in subfolders if d != ".git"]
        for name in [*subfolders, *files]:
            seen += 1
            if seen > _MAX_DENY_WALK:
                return found
            path = Path(folder) / name
            if any(path_matches(spec, path, workspace, "deny") for spec in specifiers):
                found.append(os.path.realpath(path))
                if name in subfolders:
                    subfolders.remove(name)
    return found


def _holds(folder: str, path: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def host_sockets() -> list[str]:
    """Sockets under /run and /var/run, where daemons (Docker, D-Bus, systemd, the
    user's agents) listen. A bounded walk: /run is small."""
    found: list[str] = []
    seen = 0
    for top in SOCKET_FOLDERS:
        for folder, subfolders, files in os.walk(os.path.realpath(top)):
            seen += len(subfolders) + len(files)
            if seen > _SOCKET_SCAN_LIMIT:
                return found
            for name in files:
                path = os.path.join(folder, name)
                try:
                    if stat.S_ISSOCK(os.lstat(path).st_mode):
                        found.append(path)
                except OSError:
                    continue
    return sorted(set(found))


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
            "workspace, every git folder in the workspace is read-only (so git commit and "
            "other commands that write .git fail, and a repository a command creates is "
            "removed), secrets such as ~/.ssh and API keys are hidden, /tmp is private and "
            f"starts empty, and background processes end with the command. {reach} When a "
            "command fails for one of these reasons, tell the user which command to run "
            "themselves instead of working around the sandbox.")


def describe_for_user(ctx: ToolContext) -> list[str]:
    """What /sandbox shows beyond the state: what stays read-only and what is hidden.
    Walks the workspace the first time: call it off the event loop."""
    if ctx.git_dirs is None:
        from vibe_tui.tools.git_dirs import GitDirs

        ctx.git_dirs = GitDirs(ctx.workspace)
    ctx.git_dirs.refresh()
    read_only = [os.path.relpath(p, ctx.workspace) for p in read_only_in(ctx)]
    secrets = [path for path, _ in hidden(ctx)]
    home = os.path.expanduser("~")
    shown = [("~" + p[len(home):]) if p.startswith(home + "/") else p for p in secrets]
    return [
        "commands run as an unprivileged user with no capabilities; /tmp is private",
        "the workspace is writable except: " + (", ".join(read_only) or "(nothing)"),
        "hidden from commands: " + (", ".join(shown) or "(nothing here)"),
        "keys and tokens in the environment are not passed on"
        + (f" (except {', '.join(ctx.pass_env)})" if ctx.pass_env else ""),
    ]
