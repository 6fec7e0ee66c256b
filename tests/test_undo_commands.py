"""What commands change is undone like what the edit tools change: the Changes screen and
/rewind see files a shell command created, changed or deleted; /rewind lists only changes
that happened, shows its plan and asks first, and does not report what needs no undoing."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    wait_for,
    wait_turns_ended,
)

from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.widgets.conversation import Entry

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def notices(app) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(".-notice")]


def git_repo(path) -> None:
    """A repository with notes.txt committed, as a user's project is."""
    (path / "notes.txt").write_text("one\n")
    git = ["git", "-C", str(path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)


def touch_then_edit():
    """The issue's turn: an approved ``touch always.txt``, then one edit_file."""
    return (tool_calls(tool_call("bash", {"command": "touch always.txt"})),
            tool_calls(tool_call("read_file", {"path": "notes.txt"}),
                       tool_call("edit_file", {"path": "notes.txt", "old_string": "one",
                                               "new_string": "two"})),
            text("done"))


async def run_the_turn(pilot, app) -> None:
    from vibe_tui.screens.approval import ApprovalScreen

    await submit(pilot, "touch and edit")
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="approval")
    await pilot.press("y")
    await wait_turns_ended(pilot, app.session)
    assert (app.session.workspace / "always.txt").exists()


def changes_screen(app):
    from vibe_tui.screens.changes import ChangesScreen

    return app.screen if isinstance(app.screen, ChangesScreen) else None


async def confirm(pilot, key: str) -> str:
    """Wait for the y/n question, answer it with ``key``; returns what it asked."""
    from textual.widgets import Static

    from vibe_tui.screens.changes import ConfirmScreen

    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="a y/n question")
    question = str(app.screen.query_one("#question", Static).content)
    await pilot.press(key)
    await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="answered")
    return question


async def test_a_file_a_command_created_is_in_the_changes_screen_and_reverts(fake_llm,
                                                                            tmp_path):
    git_repo(tmp_path)
    fake_llm.push(*touch_then_edit())
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await run_the_turn(pilot, app)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: changes_screen(app) is not None
                       and changes_screen(app).loaded, what="the changes screen")
        screen = changes_screen(app)
        assert [f.rel for f in screen.files] == ["always.txt", "notes.txt"]
        assert screen.files[0].created
        assert "always.txt  new" in screen_text(app)
        await pilot.press("R")  # always.txt, the first: a created file reverts by removal
        assert "always.txt: delete it" in await confirm(pilot, "y")
        await wait_for(pilot, lambda: not (tmp_path / "always.txt").exists(), what="removed")
        await wait_for(pilot, lambda: screen.loaded and [f.rel for f in screen.files]
                       == ["notes.txt"], what="the list reloaded")
        await pilot.press("R")
        await confirm(pilot, "y")
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").read_text() == "one\n",
                       what="notes.txt restored")


async def test_rewind_undoes_what_a_command_did_with_the_edits(fake_llm, tmp_path):
    git_repo(tmp_path)
    (tmp_path / "old.txt").write_text("untracked, kept\n")
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch always.txt; rm old.txt"})),
                  *touch_then_edit()[1:])
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await run_the_turn(pilot, app)
        assert not (tmp_path / "old.txt").exists()
        await submit(pilot, "/rewind")
        assert "turn 1 › touch and edit: always.txt, old.txt, notes.txt" in notices(app)[-1]
        await submit(pilot, "/rewind 1")
        question = await confirm(pilot, "y")
        assert "always.txt" in question and "old.txt" in question and "notes.txt" in question
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").read_text() == "one\n"
                       and not (tmp_path / "always.txt").exists()
                       and (tmp_path / "old.txt").exists(), what="all three undone")
        assert (tmp_path / "old.txt").read_text() == "untracked, kept\n"


async def test_rewind_lists_what_happened_shows_its_plan_and_asks(fake_llm, tmp_path):
    (tmp_path / "notes.txt").write_text("one\n")
    (tmp_path / "README.md").write_text("readme\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"}),
                             tool_call("write_file", {"path": "notes.txt", "content": "two\n"}),
                             tool_call("write_file", {"path": "new.txt", "content": "new\n"}),
                             # refused by the tool: README.md was not read first
                             tool_call("write_file", {"path": "README.md", "content": "x\n"})),
                  text("done"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write things")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "README.md").read_text() == "readme\n"
        await submit(pilot, "/rewind")
        listing = notices(app)[-1]
        assert "turn 1 › write things: notes.txt, new.txt" in listing
        assert "README.md" not in listing
        # The plan first; n keeps every file as it is.
        await submit(pilot, "/rewind 1")
        question = await confirm(pilot, "n")
        assert "notes.txt: restore" in question and "new.txt: remove" in question
        assert "README.md" not in question
        await pilot.pause()
        assert (tmp_path / "notes.txt").read_text() == "two\n"
        assert (tmp_path / "new.txt").exists()
        assert "nothing rewound" in notices(app)[-1]
        # notes.txt reverted by hand: /rewind does not restore (or report) it again.
        await app.session.revert("notes.txt")
        await submit(pilot, "/rewind 1")
        question = await confirm(pilot, "y")
        assert "new.txt: remove" in question and "notes.txt" not in question
        await wait_for(pilot, lambda: not (tmp_path / "new.txt").exists(), what="removed")
        await wait_for(pilot, lambda: "rewound to before turn 1" in notices(app)[-1],
                       what="the rewind notice")
        assert "notes.txt" not in notices(app)[-1]
        # Nothing left to do: said so, no question asked.
        await submit(pilot, "/rewind 1")
        await wait_for(pilot, lambda: "already as they were before turn 1" in notices(app)[-1],
                       what="nothing to do")


async def test_the_users_own_command_is_recorded_too(fake_llm, tmp_path):
    git_repo(tmp_path)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "!touch mine.txt")
        await wait_for(pilot, lambda: (tmp_path / "mine.txt").exists()
                       and app.session.changes.files(), what="the command recorded")
        assert [f.rel for f in app.session.changes.files()] == ["mine.txt"]
        await submit(pilot, "/rewind")
        assert "turn 0 › your ! commands before the first turn: mine.txt" in notices(app)[-1]
        await submit(pilot, "/rewind 0")
        await confirm(pilot, "y")
        await wait_for(pilot, lambda: not (tmp_path / "mine.txt").exists(), what="removed")
