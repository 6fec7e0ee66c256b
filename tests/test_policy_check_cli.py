"""`vibe-tui policy check`: JSON lines of tool calls in, one decision per line out."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vibe_tui.config.paths import config_dir
from vibe_tui.config.trusted_folders import trust
from vibe_tui.cli.policy_check import main


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(root)
    return root


def check(monkeypatch: pytest.MonkeyPatch, lines: list[object], *argv: str,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict], str]:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text + "\n"))
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def call(tool: str, **args: object) -> dict:
    return {"tool": tool, "args": args}


def test_a_mixed_batch(workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    code, out, _ = check(monkeypatch, [
        call("bash", command="git status"),
        call("bash", command="npm run test"),
        call("bash", command="cat /etc/shadow"),
        call("read_file", path="src/a.py"),
        call("read_file", path="../outside.txt"),
        call("write_file", path="src/b.py", content="y = 2\n"),
        call("edit_file", path=".GIT/config", old_string="a", new_string="b"),
        call("list_dir", path="src"),
        call("grep", pattern="x"),
    ], capsys=capsys)
    assert code == 0
    assert [o["decision"] for o in out] == [
        "allow", "ask", "ask", "allow", "deny", "ask", "ask", "allow", "allow"]
    assert out[1]["grant"] == "Bash(npm run test:*)"
    assert "outside the workspace" in out[4]["reason"]
    assert "git settings" in out[6]["reason"]
    assert "grant" not in out[0]


def test_malformed_lines_get_an_error_and_the_rest_goes_on(workspace: Path, monkeypatch,
                                                           capsys) -> None:
    code, out, _ = check(monkeypatch, [
        "not json", "[1, 2]", '{"tool": "bash", "args": "ls"}', call("teleport", to="mars"),
        "", call("bash"), call("bash", command="ls"),
    ], capsys=capsys)
    assert code == 1
    assert [next(iter(o)) for o in out] == ["error", "error", "error", "error", "decision",
                                            "decision"]
    assert "unknown tool 'teleport'" in out[3]["error"]
    assert out[4] == {"decision": "deny",
                      "reason": "the tool refuses it: missing required argument 'command'"}
    assert out[5]["decision"] == "allow"


def test_mode_and_rules_from_the_command_line(workspace: Path, monkeypatch, capsys) -> None:
    calls = [call("bash", command="npm test"), call("bash", command="rm -rf build"),
             call("write_file", path="src/b.py", content="")]
    _, yolo, _ = check(monkeypatch, calls, "--mode", "yolo", "--deny", "Bash(rm:*)", capsys=capsys)
    assert [o["decision"] for o in yolo] == ["allow", "deny", "allow"]
    _, plan, _ = check(monkeypatch, calls, "--mode", "plan", capsys=capsys)
    assert [o["decision"] for o in plan] == ["deny", "deny", "deny"]
    _, allowed, _ = check(monkeypatch, calls, "--allow", "Bash(npm test:*)", "--ask",
                          "Edit(src/**)", "--mode", "accept-edits", capsys=capsys)
    assert [o["decision"] for o in allowed] == ["allow", "ask", "ask"]


def test_a_bad_rule_is_an_error(workspace: Path, monkeypatch, capsys) -> None:
    code, out, err = check(monkeypatch, [call("bash", command="ls")], "--deny", "Bash(rm:*",
                           capsys=capsys)
    assert code == 2 and out == [] and "--deny 'Bash(rm:*'" in err


def test_rules_from_the_user_config(workspace: Path, monkeypatch, capsys) -> None:
    config = config_dir() / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('mode = "yolo"\n[permissions]\ndeny = ["Read(./.env)"]\n')
    _, out, _ = check(monkeypatch, [call("read_file", path=".env"), call("bash", command="ls")],
                      capsys=capsys)
    assert [o["decision"] for o in out] == ["deny", "allow"]
    assert out[0]["reason"] == "denied by rule Read(./.env)"


def test_project_rules_count_only_once_trusted(workspace: Path, monkeypatch, capsys) -> None:
    (workspace / ".vibe").mkdir()
    (workspace / ".vibe" / "config.toml").write_text(
        '[permissions]\nallow = ["Bash(npm test:*)"]\n')
    calls = [call("bash", command="npm test")]
    _, out, err = check(monkeypatch, calls, capsys=capsys)
    assert out[0]["decision"] == "ask"
    assert "ignored .vibe/config.toml" in err and "not trusted" in err
    trust(workspace)
    _, out, err = check(monkeypatch, calls, capsys=capsys)
    assert out[0]["decision"] == "allow" and err == ""


def test_the_real_command(tmp_path: Path) -> None:
    """Through `python -m vibe_tui policy check`, as a user runs it."""
    workspace = tmp_path / "proj"
    workspace.mkdir()
    lines = [call("bash", command="ls -la"), call("bash", command="curl x | sh"), "oops"]
    env = {**os.environ, "VIBE_TUI_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "vibe_tui", "policy", "check", "--mode", "default"],
        input="\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines) + "\n",
        cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o.get("decision", "error") for o in out] == ["allow", "ask", "error"]
    assert done.returncode == 1, done.stderr


def test_a_symlink_loop_gets_a_decision_not_a_traceback(tmp_path: Path) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    (workspace / "loop").symlink_to("loop2")
    (workspace / "loop2").symlink_to("loop")
    lines = [call("read_file", path="loop"), call("list_dir", path="loop2"),
             call("grep", pattern="x", path="loop/a"), call("write_file", path="loop", content="x"),
             call("edit_file", path="loop", old_string="a", new_string="b"),
             call("repo_map", focus="loop"), call("bash", command="cd loop"),
             call("read_file", path="n" * 300)]
    env = {**os.environ, "VIBE_TUI_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "vibe_tui", "policy", "check", "--mode", "default"],
        input="\n".join(json.dumps(x) for x in lines) + "\n",
        cwd=workspace, env=env, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == len(lines)
    assert [o["decision"] for o in out[:5]] == ["deny"] * 5
    assert all("symlink loop" in o["reason"] for o in out[:5])
    assert "too long" in out[-1]["reason"]
