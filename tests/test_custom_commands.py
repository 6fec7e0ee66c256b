"""Custom commands: Markdown files in the user's and a trusted project's commands folders
become slash commands, in the app and in ``-p``; real files, the real app, a real fake-model
server."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import pytest
from app_helpers import SIZE, entries, make_app, submit, wait_for, wait_turns_ended
from engine_helpers import make_session

from vibe_tui.cli.headless import run_headless
from vibe_tui.commands import completions
from vibe_tui.config.paths import config_dir
from vibe_tui.config.trusted_folders import trust
from vibe_tui.core.custom_commands import CustomCommand, load_commands, split_front_matter
from vibe_tui.testing.script import text, tool_call, tool_calls

FIX_ISSUE = """---
description: Fix a numbered issue
argument-hint: NUMBER [PRIORITY]
---
Fix issue #$1 with priority $2. Everything typed: $ARGUMENTS
"""


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def user_commands() -> Path:
    return config_dir() / "commands"


def last_user_message(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def command(body: str) -> CustomCommand:
    return CustomCommand(name="/c", body=body, source="user", path=Path("c.md"))


def test_arguments_fill_the_placeholders() -> None:
    assert command("Fix #$1 ($2): $ARGUMENTS").prompt('42 "very high"') == \
        'Fix #42 (very high): 42 "very high"'
    assert command("Review $1 and $3.").prompt("a.py") == "Review a.py and ."
    assert command("Say hello.").prompt("") == "Say hello."
    # No placeholder: what was typed still reaches the model.
    assert command("Review the diff.").prompt("focus on tests") == \
        "Review the diff.\n\nArguments: focus on tests"
    assert command("Quote $1").prompt('"unclosed') == 'Quote "unclosed'


def test_front_matter_is_read_and_a_broken_one_is_said() -> None:
    meta, body = split_front_matter(FIX_ISSUE)
    assert meta["description"] == "Fix a numbered issue" and body.startswith("Fix issue")
    assert split_front_matter("no front matter\n") == ({}, "no front matter\n")
    with pytest.raises(ValueError, match="not YAML"):
        split_front_matter("---\ndescription: [unclosed\n---\nbody\n")


def test_user_commands_load_and_bad_files_are_skipped_with_a_reason(tmp_path: Path) -> None:
    root = user_commands()
    write(root / "fix-issue.md", FIX_ISSUE)
    write(root / "frontend" / "component.md", "Make a component named $1.")
    write(root / "help.md", "not the built-in")
    write(root / "bad name.md", "spaces")
    (root / "blob.md").write_bytes(b"\x00\x01binary")
    secret = write(tmp_path / "secret.txt", "TOKEN=abc")
    os.symlink(secret, root / "leak.md")

    found = load_commands(tmp_path, reserved={"/help"})

    assert sorted(found.commands) == ["/fix-issue", "/frontend:component"]
    fix = found.commands["/fix-issue"]
    assert fix.usage == "/fix-issue NUMBER [PRIORITY]"
    assert fix.help == "Fix a numbered issue (user)"
    problems = "\n".join(found.problems)
    for reason in ("built-in command", "not a command name", "a binary file", "links out of"):
        assert reason in problems


def test_a_project_s_commands_count_only_once_the_folder_is_trusted(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "commands" / "review.md", "Claude's review")
    write(tmp_path / ".vibe" / "commands" / "review.md", "our review")
    write(tmp_path / ".claude" / "commands" / "only-claude.md", "from .claude")
    write(user_commands() / "review.md", "the user's review")

    untrusted = load_commands(tmp_path)
    assert untrusted.untrusted
    assert untrusted.commands["/review"].body == "the user's review"
    assert "/only-claude" not in untrusted.commands

    trust(tmp_path)
    trusted = load_commands(tmp_path)
    assert not trusted.untrusted
    assert trusted.commands["/review"].body == "our review"  # .vibe over .claude over user
    assert trusted.commands["/only-claude"].source == "project"


async def test_a_command_with_arguments_is_sent_as_its_prompt_in_the_app(fake_llm, tmp_path):
    write(user_commands() / "fix-issue.md", FIX_ISSUE)
    fake_llm.push(text("on it"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/fix-issue 42 high")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/help")
        await wait_for(pilot, lambda: any("/fix-issue NUMBER [PRIORITY]" in e
                                          for e in entries(app, ".-notice")), what="/help")
        help_entry = [e for e in entries(app, ".-notice") if "/fix-issue" in e][0]
        assert "Fix a numbered issue (user)" in help_entry
    assert last_user_message(fake_llm.requests[0]).startswith(
        "Fix issue #42 with priority high. Everything typed: 42 high")
    assert ("/fix-issue", "Fix a numbered issue (user)") in completions(tmp_path)


async def test_an_untrusted_project_command_is_not_sent(fake_llm, tmp_path):
    write(tmp_path / ".vibe" / "commands" / "deploy.md", "Run ./deploy.sh now.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/deploy")
        await wait_for(pilot, lambda: any("unknown command /deploy" in e and "/trust" in e
                                          for e in entries(app, ".-notice")), what="refusal")
    assert fake_llm.requests == []


def test_a_command_runs_in_headless_mode(fake_llm, tmp_path):
    write(user_commands() / "fix-issue.md", FIX_ISSUE)
    write(tmp_path / ".vibe" / "commands" / "deploy.md", "Run ./deploy.sh now.")
    fake_llm.push(text("fixed"), text("plain"))
    out, err = io.StringIO(), io.StringIO()

    code = asyncio.run(run_headless(make_session(fake_llm, tmp_path), "/fix-issue 7",
                                    out=out, err=err))
    assert code == 0, err.getvalue()
    assert last_user_message(fake_llm.requests[0]).startswith("Fix issue #7 with priority .")

    code = asyncio.run(run_headless(make_session(fake_llm, tmp_path), "/deploy", out=out, err=err))
    assert last_user_message(fake_llm.requests[1]) == "/deploy"  # sent as typed, not run
    assert "count once you trust the folder" in err.getvalue()


MAKE_FILE = """---
description: Make the marker
allowed-tools: Bash(touch:*), Bash(git commit -m "a, b":*)
model: openai/the-command-model
---
Create the marker file.
"""


def test_allowed_tools_are_rules_and_a_bad_one_skips_the_command(tmp_path: Path) -> None:
    write(user_commands() / "make-file.md", MAKE_FILE)
    write(user_commands() / "bad.md", "---\nallowed-tools: Bash(rm -rf\n---\nhi\n")
    found = load_commands(tmp_path)
    made = found.commands["/make-file"]
    assert made.allowed_tools == ("Bash(touch:*)", 'Bash(git commit -m "a, b":*)')
    assert made.options.model == "openai/the-command-model"
    assert "/bad" not in found.commands
    assert any("bad.md" in p and "allowed-tools rule" in p for p in found.problems)


def test_a_commands_rules_and_model_hold_for_its_turn_only(fake_llm, tmp_path):
    write(user_commands() / "make-file.md", MAKE_FILE)
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch marker"})), text("made"),
                  tool_calls(tool_call("bash", {"command": "touch second"})), text("asked"))
    out, err = io.StringIO(), io.StringIO()
    session = make_session(fake_llm, tmp_path)
    session.interactive = False
    assert asyncio.run(run_headless(session, "/make-file", out=out, err=err)) == 0
    assert (tmp_path / "marker").exists()  # allowed by the command, without asking
    assert "/make-file: model openai/the-command-model; allowed without asking: " \
        "Bash(touch:*)" in err.getvalue()
    assert [r["model"] for r in fake_llm.requests] == ["the-command-model"] * 2

    session = make_session(fake_llm, tmp_path)
    session.interactive = False
    asyncio.run(run_headless(session, "make the second file", out=out, err=err))
    assert not (tmp_path / "second").exists()  # a plain message: the rule is gone
    assert fake_llm.requests[2]["model"] == fake_llm.model.split("/", 1)[1]


def test_a_command_file_added_after_trust_needs_trusting_again(tmp_path: Path) -> None:
    write(tmp_path / ".vibe" / "commands" / "review.md", "our review")
    trust(tmp_path)
    assert "/review" in load_commands(tmp_path).commands
    write(tmp_path / ".vibe" / "commands" / "ship.md",
          "---\nallowed-tools: Bash(*)\n---\nShip it.\n")  # what a pull could bring
    found = load_commands(tmp_path)
    assert found.untrusted and "/ship" not in found.commands and "/review" not in found.commands
