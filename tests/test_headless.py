"""`vibe-tui -p` as a user runs it: a real process against the fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from vibe_tui.testing.script import text, tool_call, tool_calls

BUGGY = "def add(a, b):\n    return a - b\n"
TESTS = textwrap.dedent("""\
    import unittest
    from calc import add

    class AddTest(unittest.TestCase):
        def test_add(self):
            self.assertEqual(add(2, 3), 5)

    if __name__ == "__main__":
        unittest.main()
""")


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text(BUGGY)
    (repo / "test_calc.py").write_text(TESTS)
    for command in (["git", "init", "-q"], ["git", "add", "."],
                    ["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"]):
        subprocess.run(command, cwd=repo, check=True)
    return repo


def run_cli(repo: Path, llm, *args: str, home: Path) -> subprocess.CompletedProcess:
    # The base interpreter first (the agent's `python -m unittest` needs only the standard
    # library): the sandbox gives commands a private /tmp, which hides a venv that lives
    # there, as it does when the repository is cloned under /tmp.
    path = f"{Path(sys.base_prefix) / 'bin'}:{Path(sys.executable).parent}:/usr/bin:/bin"
    env = {"PATH": path, "VIBE_TUI_HOME": str(home),
           "HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "vibe_tui", "--model", llm.model, "--api-base", llm.base_url,
         *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def test_headless_fixes_a_bug_runs_the_tests_and_refuses_a_chained_command(fake_llm, tmp_path):
    repo = make_repo(tmp_path)
    fake_llm.push(
        tool_calls(tool_call("bash", {"command": "python -m unittest"})),
        tool_calls(tool_call("read_file", {"path": "calc.py"})),
        tool_calls(tool_call("edit_file", {"path": "calc.py", "old_string": "return a - b",
                                           "new_string": "return a + b"})),
        tool_calls(tool_call("bash", {"command": "python -m unittest"})),
        tool_calls(tool_call("bash", {"command": "python -m unittest && rm -rf ."})),
        text("Fixed add(): it subtracted. The tests pass."),
    )
    result = run_cli(repo, fake_llm, "-p", "fix the failing test", "--mode", "accept-edits",
                     "--allow", "Bash(python -m unittest:*)", "--output-format", "jsonl",
                     home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    results = [e for e in events if e["type"] == "tool_result"]
    assert results[0]["exit_code"] != 0  # the bug shows first
    assert results[2]["status"] == "ok" and "+    return a + b" in results[2]["diff"]
    assert results[3]["exit_code"] == 0
    assert results[4]["status"] == "denied"
    denial = [e for e in events if e["type"] == "approval_resolved"]
    assert [(d["decision"], d["by"]) for d in denial] == [("deny", "headless")]
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (repo / "test_calc.py").exists()
    assert events[-1]["type"] == "turn_ended" and events[-1]["state"] == "completed"
    types = {e["type"] for e in events}
    assert types >= {"turn_started", "user_message", "text_delta", "assistant_message",
                     "tool_call", "approval_requested", "tool_result", "usage", "turn_ended"}


def test_headless_text_output_and_failure_exit_code(fake_llm, tmp_path):
    fake_llm.push(text("The answer is 42."))
    result = run_cli(tmp_path, fake_llm, "-p", "what is the answer?", home=tmp_path / "home")
    assert result.returncode == 0
    assert result.stdout.strip() == "The answer is 42."
    from vibe_tui.testing.script import error

    fake_llm.push(error(401, "Incorrect API key provided"))
    result = run_cli(tmp_path, fake_llm, "-p", "again", home=tmp_path / "home")
    assert result.returncode == 1
    assert "authentication failed" in result.stderr


def test_continue_resumes_the_last_session_of_the_workspace(fake_llm, tmp_path):
    fake_llm.push(text("first"), text("second"))
    home = tmp_path / "home"
    run_cli(tmp_path, fake_llm, "-p", "remember 7", home=home)
    result = run_cli(tmp_path, fake_llm, "-p", "what number?", "--continue", home=home)
    assert result.returncode == 0, result.stderr
    contents = [m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"]
    assert contents == ["remember 7", "what number?"]


def test_resume_of_an_unknown_session_is_a_clear_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "vibe_tui", "-p", "x", "--resume", "nope"],
                            cwd=tmp_path, capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "VIBE_TUI_HOME": str(tmp_path)})
    assert result.returncode == 2
    assert "no saved sessions" in result.stderr


def test_resume_by_id_continues_that_session(fake_llm, tmp_path):
    fake_llm.push(text("first"), text("other"), text("third"))
    home = tmp_path / "home"
    first = run_cli(tmp_path, fake_llm, "-p", "session one", "--output-format", "jsonl",
                    home=home)
    session_id = json.loads(first.stdout.splitlines()[0])["session_id"]
    run_cli(tmp_path, fake_llm, "-p", "session two", home=home)
    result = run_cli(tmp_path, fake_llm, "-p", "back to one", "--resume", session_id[:20],
                     home=home)
    assert result.returncode == 0, result.stderr
    contents = [m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"]
    assert contents == ["session one", "back to one"]


def test_a_malformed_rule_is_refused_at_start(tmp_path):
    result = subprocess.run([sys.executable, "-m", "vibe_tui", "-p", "x", "--model", "openai/m",
                             "--deny", "Bash(rm:*"], cwd=tmp_path, capture_output=True,
                            text=True, env={"PATH": "/usr/bin:/bin", "VIBE_TUI_HOME": str(tmp_path)})
    assert result.returncode == 2
    assert "deny rule 'Bash(rm:*' is not valid" in result.stderr


async def test_text_output_shows_a_subagents_calls_indented_and_not_its_text(tmp_path):
    import io

    from engine_helpers import subagent_responder
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session
    from vibe_tui.cli.headless import run_headless
    from vibe_tui.testing.fake_llm import FakeLLM

    (tmp_path / "alpha.py").write_text("ALPHA = 1\n")
    with FakeLLM(responder=subagent_responder) as llm:
        session = Session(Config(model=llm.model, api_base=llm.base_url), tmp_path,
                          interactive=False)
        out, err = io.StringIO(), io.StringIO()
        code = await run_headless(session, "what is ALPHA?", out=out, err=err)
    assert code == 0, err.getvalue()
    assert "MAINANSWER" in out.getvalue() and "SUBREPORT" not in out.getvalue()
    assert "→ task: " in err.getvalue()
    assert "  ↳ read_file: " in err.getvalue()


def failure_lines(result: subprocess.CompletedProcess, needle: str) -> list[str]:
    return [line for line in (result.stdout + result.stderr).splitlines() if needle in line]


def test_a_refused_connection_is_one_short_line_naming_model_and_url(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"

    class Closed:  # an endpoint nothing listens on
        model, base_url = "openai/fake-model", url

    result = run_cli(tmp_path, Closed, "-p", "hello", home=tmp_path / "home")
    assert result.returncode == 1
    lines = failure_lines(result, url)
    assert len(lines) == 1, result.stderr
    assert "openai/fake-model" in lines[0] and "connection refused" in lines[0]
    assert "retrying" not in result.stderr and "Connection error" not in result.stderr


def test_a_missing_key_is_one_short_line_naming_the_variable(fake_llm, tmp_path):
    class Anthropic:  # the fake server as its endpoint: a request sent would arrive there
        model, base_url = "anthropic/claude-sonnet-4-5", fake_llm.base_url

    result = run_cli(tmp_path, Anthropic, "-p", "hello", home=tmp_path / "home")
    assert result.returncode == 1
    lines = failure_lines(result, "ANTHROPIC_API_KEY")
    assert len(lines) == 1, result.stderr
    assert "anthropic/claude-sonnet-4-5" in lines[0] and "/settings" in lines[0]
    assert len(lines[0]) < 240
    assert fake_llm.requests == []
