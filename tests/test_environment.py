"""The environment of agent commands: the workspace's virtual environment and !export."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vibe_tui.tools import sandbox
from vibe_tui.tools.base import ToolContext
from vibe_tui.tools.environment import (
    apply_export,
    command_env,
    interactive_env,
    is_export,
    venv_in_use,
)
from vibe_tui.tools.interactive import INTERACTIVE_TOOLS, close_all
from vibe_tui.tools.shell import BashTool

bash = BashTool()
start, send, _ = INTERACTIVE_TOOLS


@pytest.fixture
async def ctx(tmp_path: Path):
    # On the host: what the environment holds, not what the sandbox does with it.
    context = ToolContext(workspace=tmp_path, sandbox_mode="off")
    yield context
    await close_all(context)


def make_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path


PREFIX = 'python -c "import sys; print(sys.prefix)"'


async def test_no_venv_leaves_the_environment_alone(ctx):
    assert venv_in_use(ctx) is None
    env = command_env(ctx)
    assert env["PATH"] == os.environ["PATH"]
    assert env.get("VIRTUAL_ENV") == os.environ.get("VIRTUAL_ENV")


@pytest.mark.parametrize("name", [".venv", "venv"])
async def test_bash_finds_the_workspace_venv_python(ctx, tmp_path, name):
    venv = make_venv(tmp_path / name)
    assert venv_in_use(ctx) == venv
    out = await bash.run({"command": PREFIX}, ctx)
    assert out.text.splitlines()[0] == str(venv)
    out = await bash.run({"command": 'echo "$VIRTUAL_ENV"; command -v python3'}, ctx)
    assert out.text.splitlines()[:2] == [str(venv), str(venv / "bin" / "python3")]


@pytest.mark.skipif(sandbox.probe().kind != "bubblewrap",
                    reason="bubblewrap cannot start here (CI installs it)")
async def test_the_sandboxed_bash_finds_the_venv_python_too(tmp_path):
    venv = make_venv(tmp_path / ".venv")
    out = await bash.run({"command": PREFIX}, ToolContext(workspace=tmp_path))
    assert out.text.splitlines()[0] == str(venv)


async def test_a_broken_venv_is_not_used(ctx, tmp_path):
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(tmp_path / "gone" / "python3")
    assert venv_in_use(ctx) is None


async def test_a_pty_session_uses_the_venv_too(ctx, tmp_path):
    venv = make_venv(tmp_path / ".venv")
    out = await start.run({"command": f"{PREFIX}; exec sleep 600", "cols": 200}, ctx)
    sid = out.meta["session_id"]
    while str(venv) not in out.text:
        out = await send.run({"session_id": sid, "input": "", "wait_ms": 200}, ctx)
    assert f"\n{venv}\n" in out.text


async def test_terminal_variables(ctx):
    env = interactive_env(ctx, 120, 40)
    assert (env["TERM"], env["COLUMNS"], env["LINES"]) == ("xterm-256color", "120", "40")
    assert "CI" not in env  # prompt libraries skip their questions under CI
    assert command_env(ctx)["TERM"] == "dumb" and command_env(ctx)["CI"] == "1"


async def test_an_inherited_cdpath_does_not_move_cd(ctx, tmp_path, monkeypatch):
    """With CDPATH, bash's ``cd src`` goes to the first ``src`` on it and prints where."""
    (tmp_path / "src").mkdir()
    (tmp_path / "elsewhere" / "src").mkdir(parents=True)
    monkeypatch.setenv("CDPATH", str(tmp_path / "elsewhere"))
    assert "CDPATH" not in command_env(ctx)
    assert "CDPATH" not in interactive_env(ctx, 80, 24)
    out = await bash.run({"command": "cd src && pwd"}, ctx)
    assert out.text.splitlines()[0] == str(tmp_path / "src")
    # One the user exports in the session is theirs to have.
    await apply_export(ctx, f"export CDPATH={tmp_path / 'elsewhere'}")
    assert command_env(ctx)["CDPATH"] == str(tmp_path / "elsewhere")


def test_what_counts_as_an_export():
    for line in ("export A=1", "export A='x y' B=2", "unset A", "export A=1; unset B",
                 "export A=1 && export B=$A", "export PATH=$(pwd)/bin:$PATH", "export"):
        assert is_export(line), line
    for line in ("echo hi", "A=1", "export A=1 | cat", "export A=1 > f", "export A=1; ls",
                 "export A=1 &", "exporter A=1", "", "export A='unterminated"):
        assert not is_export(line), line


async def test_an_export_applies_to_later_commands(ctx, tmp_path):
    message = await apply_export(ctx, "export GREETING='hello world'")
    assert message == "for later commands: GREETING=hello world"
    out = await bash.run({"command": 'echo "$GREETING"'}, ctx)
    assert out.text.splitlines()[0] == "hello world"
    assert interactive_env(ctx, 80, 24)["GREETING"] == "hello world"

    await apply_export(ctx, "unset GREETING")
    out = await bash.run({"command": 'echo "[${GREETING-unset}]"'}, ctx)
    assert out.text.splitlines()[0] == "[unset]"


async def test_an_export_is_expanded_by_bash(ctx, tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    script = tools / "greet"
    script.write_text("#!/bin/sh\necho greetings\n")
    script.chmod(0o755)
    await apply_export(ctx, 'export PATH="$PWD/tools:$PATH"')
    out = await bash.run({"command": "greet"}, ctx)
    assert out.text.splitlines()[0] == "greetings"
    # The workspace venv goes first whatever the user put on PATH.
    venv = make_venv(tmp_path / ".venv")
    out = await bash.run({"command": PREFIX}, ctx)
    assert out.text.splitlines()[0] == str(venv)


async def test_an_export_can_unset_an_inherited_variable(ctx, monkeypatch):
    monkeypatch.setenv("VIBE_TEST_INHERITED", "yes")
    assert command_env(ctx)["VIBE_TEST_INHERITED"] == "yes"
    assert await apply_export(ctx, "unset VIBE_TEST_INHERITED") == \
        "for later commands: unset VIBE_TEST_INHERITED"
    assert "VIBE_TEST_INHERITED" not in command_env(ctx)


async def test_a_failed_export_changes_nothing(ctx):
    message = await apply_export(ctx, "export 1BAD=x")
    assert message.startswith("export failed:") and "not a valid identifier" in message
    assert ctx.env_overrides == {}
    assert await apply_export(ctx, "export") == "environment unchanged"
