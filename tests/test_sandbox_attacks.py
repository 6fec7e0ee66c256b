"""The sandbox against a hostile repository and a steered model, run twice: as the user
running the tests (root in CI, as in most containers) and as an unprivileged user (the
``nobody`` leg: bubblewrap itself started through ``setpriv``, which only root can do).

Each attack is real: real bubblewrap, real git, real sockets, files on disk. The
workspaces live under /var/tmp so that ``nobody`` can reach them; each leg owns its
workspace, so what stops a write is the sandbox, never a file's permissions.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from vibe_tui.tools import sandbox
from vibe_tui.tools.base import ToolContext
from vibe_tui.tools.shell import BashTool

bash = BashTool()
STATE = sandbox.probe()
IS_ROOT = os.getuid() == 0
SETPRIV = shutil.which("setpriv")
pytestmark = pytest.mark.skipif(STATE.kind != "bubblewrap", reason=STATE.detail)
LEGS = ["invoker", pytest.param("nobody", marks=pytest.mark.skipif(
    not (IS_ROOT and SETPRIV), reason="the unprivileged leg starts bubblewrap as nobody, "
                                      "which needs root and setpriv"))]


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # safe.directory: in the nobody leg the test's own git (root) works on nobody's tree.
    return subprocess.run(["git", "-c", "safe.directory=*", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder reachable by every user, outside /tmp (which the sandbox replaces)."""
    folder = Path(tempfile.mkdtemp(prefix="vibe-attack-", dir="/var/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", ".", cwd=path)
    return path


@pytest.fixture(params=LEGS)
def leg(request: pytest.FixtureRequest, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv(sandbox.ALLOW_HOST_ENV, raising=False)
    if request.param == "nobody":
        wrapper = scratch / "bwrap-as-nobody"
        wrapper.write_text(f"#!/bin/sh\nexec {SETPRIV} --reuid={sandbox.NOBODY} "
                           f"--regid={sandbox.NOBODY} --clear-groups -- "
                           f"{sandbox.bwrap_binary()} \"$@\"\n")
        wrapper.chmod(0o755)
        monkeypatch.setenv(sandbox.BWRAP_ENV, str(wrapper))
        # nobody's own home: root's is closed to it, as another user's would be.
        home = scratch / "nobody-home"
        home.mkdir()
        os.chown(home, sandbox.NOBODY, sandbox.NOBODY)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("VIBE_TUI_HOME", str(scratch / "vibe-tui-home"))
        assert sandbox.probe(str(wrapper)).kind == "bubblewrap"
    return request.param


@pytest.fixture
def workspace(scratch: Path, leg: str) -> Path:
    root = make_repo(scratch / "ws")
    (root / "README.md").write_text("# demo\n")
    return root


def owned_by_leg(path: Path, leg: str) -> None:
    """Hand the tree to the leg's user, so only the sandbox can refuse its writes."""
    if leg == "nobody":
        for folder, subfolders, files in os.walk(path):
            for name in [folder, *(os.path.join(folder, n) for n in subfolders + files)]:
                os.lchown(name, sandbox.NOBODY, sandbox.NOBODY)


@pytest.fixture
def ctx(workspace: Path, scratch: Path, leg: str) -> ToolContext:
    owned_by_leg(workspace, leg)
    return ToolContext(workspace=workspace, quarantine_dir=scratch / "quarantine")


async def run(ctx: ToolContext, command: str) -> str:
    out = await bash.run({"command": command}, ctx)
    return out.text


# -- finding 1: no capabilities, nothing to remount, no way out to the host -------------


async def test_commands_have_no_capabilities_and_are_not_root(ctx: ToolContext) -> None:
    text = await run(ctx, "id -u; grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status")
    lines = text.splitlines()
    assert lines[0] != "0"
    for line in lines[1:4]:
        assert line.split()[1] == "0000000000000000", text


async def test_cannot_remount_git_or_root_writable(ctx: ToolContext, workspace: Path,
                                                   scratch: Path) -> None:
    config = workspace / ".git" / "config"
    before = config.read_text()
    outside = scratch / "outside"
    outside.mkdir()
    outside.chmod(0o777)  # the host would let anyone write here: only the sandbox says no
    text = await run(ctx, f"mount -o remount,bind,rw {workspace}/.git; "
                          f"mount -o remount,rw /; mount -o remount,bind,rw {outside}; "
                          f"echo '[core] fsmonitor = evil' >> .git/config; "
                          f"echo x > {outside}/escaped")
    assert config.read_text() == before, text
    assert not (outside / "escaped").exists(), text


async def test_cannot_unmount_proc_or_join_the_host_network(ctx: ToolContext) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        knock = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        # With /proc unmounted, the host's shows through; any host process's network
        # namespace is then one nsenter away (pid 1's alone is guarded by ptrace rules).
        text = await run(ctx, "umount -l /proc; for p in /proc/[0-9]*; do "
                              f"nsenter --net=$p/ns/net bash -c '{knock}' 2>/dev/null && break; "
                              f"done; unshare -rn bash -c '{knock}'; {knock}")
        assert "connected" not in text
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked


async def test_cannot_make_a_user_namespace_inside(ctx: ToolContext) -> None:
    text = await run(ctx, "unshare -Ur id -u && echo made-one")
    assert "made-one" not in text


# -- finding 2: no git folder is writable, and none a command makes survives it ---------


@pytest.fixture
def hostile(workspace: Path, ctx: ToolContext, leg: str) -> Path:
    """Git folders of every kind: nested, a submodule's gitfile, a committed bare one."""
    make_repo(workspace / "vendor" / "evil")
    bare = workspace / "vendor" / "lib.git"
    git("init", "-q", "--bare", str(bare), cwd=workspace)
    module_dir = workspace / ".git" / "modules" / "sub"
    git("init", "-q", "--bare", str(module_dir), cwd=workspace)
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    owned_by_leg(workspace, leg)
    return workspace


@pytest.mark.parametrize("git_dir", [".git", "vendor/evil/.git", "vendor/lib.git",
                                     ".git/modules/sub", "sub/.git"])
async def test_no_git_folder_in_the_workspace_is_writable(hostile: Path, ctx: ToolContext,
                                                          git_dir: str) -> None:
    target = hostile / git_dir
    config = target / "config" if target.is_dir() else target
    before = config.read_text()
    text = await run(ctx, f"echo '[core]\n\tfsmonitor = ./x' >> {config}; "
                          f"mkdir -p {target}/hooks; echo 'touch PWNED' > {target}/hooks/pre-commit")
    assert config.read_text() == before, text
    assert not (target / "hooks" / "pre-commit").exists() or target.is_file()


HOOK = "#!/bin/sh\ntouch \"$PWD/PWNED\"\n"


@pytest.mark.parametrize("making", [
    "git init -q made && cd made && printf '%s' \"$HOOK\" > .git/hooks/pre-commit && "
    "chmod +x .git/hooks/pre-commit && git config core.fsmonitor .git/hooks/pre-commit",
    "mkdir -p made/.git/hooks made/.git/objects made/.git/refs && echo 'ref: refs/heads/m' "
    "> made/.git/HEAD && printf '%s' \"$HOOK\" > made/.git/hooks/pre-commit && "
    "chmod +x made/.git/hooks/pre-commit",
    "git init -q --bare made && git --git-dir=made config core.fsmonitor "
    "\"$PWD/made/hooks/pre-commit\" && printf '%s' \"$HOOK\" > made/hooks/pre-commit && "
    "chmod +x made/hooks/pre-commit",
], ids=["git-init", "by-hand", "bare"])
async def test_a_repository_a_command_makes_never_runs_its_hooks_outside(
        ctx: ToolContext, workspace: Path, making: str) -> None:
    text = await run(ctx, f"export HOOK='{HOOK}'; {making} && echo made")
    assert "made" in text
    assert "moved the git repository data" in text
    made = workspace / "made"
    # The user's own git, on the host, afterwards: nothing the command wrote runs.
    if made.exists():
        for args in (["status"], ["commit", "-q", "--allow-empty", "-m", "x"]):
            git(*args, cwd=made)
    assert not (made / "PWNED").exists() and not (workspace / "PWNED").exists()
    assert not (made / ".git").exists() and not (made / "HEAD").exists()
    assert list((ctx.quarantine_dir or Path()).rglob("pre-commit")), "kept, out of the way"
    # And the repositories found before the command are still there.
    assert (workspace / ".git" / "config").exists()


# -- finding 3: secrets stay with vibe-tui --------------------------------------------


async def test_keys_and_tokens_are_not_in_the_environment(
        ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "MY_SERVICE_SECRET", "AWS_ACCESS_KEY_ID",
                 "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "SSH_AUTH_SOCK", "NPM_CONFIG__AUTH"):
        monkeypatch.setenv(name, f"leak-{name}")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    text = await run(ctx, "env")
    assert "leak-" not in text
    assert "HARMLESS_SETTING=visible" in text
    # Handed over on purpose: the config's pass_env, or !export for the session.
    ctx.pass_env = ("GITHUB_TOKEN",)
    ctx.env_overrides["DB_PASSWORD"] = "on-purpose"
    text = await run(ctx, "env")
    assert "GITHUB_TOKEN=leak-GITHUB_TOKEN" in text and "DB_PASSWORD=on-purpose" in text
    assert "OPENAI_API_KEY" not in text


async def test_secret_files_read_as_empty(ctx: ToolContext, scratch: Path, leg: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = scratch / "home"
    secrets = {".ssh/id_rsa": "PRIVATE", ".aws/credentials": "AWSKEY", ".netrc": "NETRC",
               ".git-credentials": "GITCRED", ".docker/config.json": "DOCKER",
               ".config/gcloud/credentials.db": "GCLOUD", "mine/token.txt": "MINE"}
    for relative, text in secrets.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text)
    vibe_home = scratch / "vibe-home"
    (vibe_home / "config").mkdir(parents=True)
    (vibe_home / "config" / "credentials.toml").write_text('[keys]\nopenai = "OWNKEY"\n')
    for folder in (home, vibe_home):
        folder.chmod(0o755)
        owned_by_leg(folder, leg)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("VIBE_TUI_HOME", str(vibe_home))
    ctx.hide_paths = ("~/mine",)
    paths = " ".join(str(home / r) for r in secrets) + f" {vibe_home}/config/credentials.toml"
    text = await run(ctx, f"for f in {paths}; do cat $f 2>&1; done; ls ~/.ssh; echo end")
    for leaked in (*secrets.values(), "OWNKEY"):
        assert leaked not in text, text
    assert text.rstrip().endswith("end") or "end" in text
    # The control: the same files read fine on the host.
    assert (home / ".ssh" / "id_rsa").read_text() == "PRIVATE"


# -- finding 4 and 5: a read-only command runs no code of the repository's ---------------


async def test_read_only_git_runs_with_a_hardened_configuration(
        ctx: ToolContext, workspace: Path, leg: str) -> None:
    script = workspace / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {workspace}/PWNED\nexit 1\n")
    script.chmod(0o755)
    (workspace / "f.txt").write_text("a\n")
    git("add", "f.txt", cwd=workspace)
    git("commit", "-qm", "x", cwd=workspace)
    (workspace / "f.txt").write_text("b\n")
    for key, value in (("core.fsmonitor", str(script)), ("core.pager", str(script)),
                       ("core.hooksPath", str(workspace)), ("log.showSignature", "true"),
                       ("gpg.program", str(script))):
        git("config", key, value, cwd=workspace)
    (workspace / "post-index-change").write_text(script.read_text())
    (workspace / "post-index-change").chmod(0o755)
    owned_by_leg(workspace, leg)
    for command in ("git status", "git log", "git diff", "git show --stat"):
        text = await run(ctx, command)
        assert not (workspace / "PWNED").exists(), (command, text)
    assert "f.txt" in await run(ctx, "git status --short")


async def test_read_only_commands_never_run_a_program_of_the_workspace(
        ctx: ToolContext, workspace: Path, leg: str) -> None:
    venv_bin = workspace / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    for name in ("git", "ls", "cat", "bash", "python"):
        (venv_bin / name).write_text(f"#!/bin/sh\ntouch {workspace}/PWNED-{name}\n")
        (venv_bin / name).chmod(0o755)
    owned_by_leg(workspace, leg)
    text = await run(ctx, "git status && ls && cat README.md")
    assert "# demo" in text
    assert not list(workspace.glob("PWNED-*")), text
    # A command a person approved keeps the venv first (python is the project's), but the
    # shell that runs it is the system's.
    await run(ctx, "touch approved.txt")
    assert not (workspace / "PWNED-bash").exists()


# -- finding 8, below the words: what a Read deny rule names, no command reads ----------


async def test_files_a_read_deny_rule_names_are_hidden_from_every_program(
        ctx: ToolContext, workspace: Path, scratch: Path, leg: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (workspace / ".env").write_text("DOTENV-SECRET\n")
    (workspace / "keys").mkdir()
    (workspace / "keys" / "deploy.key").write_text("KEYFILE-SECRET\n")
    (workspace / "public.txt").symlink_to(workspace / ".env")
    home = scratch / "home2"
    (home / "vault").mkdir(parents=True)
    (home / "vault" / "x").write_text("VAULT-SECRET\n")
    for path in (workspace, home):
        owned_by_leg(path, leg)
    home.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    ctx.read_deny = ("Read(./.env)", "Read(**/*.key)", "Read(~/vault/**)", "Bash(rm:*)")
    # Programs whose words do not name the files: the policy cannot see these reads.
    text = await run(ctx, "python3 -c \"import glob, os; [print(open(p).read()) for p in "
                          "glob.glob('**/*', recursive=True, include_hidden=True) "
                          "if os.path.isfile(p) and '.git' not in p]\"; cat public.txt; "
                          "cat ~/vault/x; echo done")
    for secret in ("DOTENV-SECRET", "KEYFILE-SECRET", "VAULT-SECRET"):
        assert secret not in text, text
    assert "# demo" in text and "done" in text  # other files read as usual
