"""The session's change record: cumulative diffs, reverts of a file or a hunk, the note the
model reads, the flag for files changed outside the agent, and the Changes screen."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest
from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    user_texts,
    wait_for,
)
from engine_helpers import make_session, of_type

from vibe_tui.core import events as ev
from vibe_tui.core.changes import ChangeError, ChangeRecord, git_diff_stat
from vibe_tui.testing.script import text, tool_call, tool_calls

OLD = "".join(f"line {n}\n" for n in range(1, 31))
NEW = OLD.replace("line 2\n", "line two\n").replace("line 28\n", "line twenty-eight\n")


def agent_writes(record: ChangeRecord, path, data: bytes) -> None:
    """What the loop does around an edit tool."""
    record.remember([path])
    path.write_bytes(data)
    record.touched([path])


def test_cumulative_diff_against_the_session_start(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    record = ChangeRecord(tmp_path)
    agent_writes(record, path, OLD.replace("line 2\n", "line two\n").encode())
    agent_writes(record, path, NEW.encode())  # the second edit does not move the start
    [changed] = record.files()
    assert changed.rel == "f.txt" and not changed.changed_outside
    assert len(changed.hunks) == 2 and (changed.added, changed.removed) == (2, 2)
    assert "-line 2\n+line two" in changed.diff


def test_unchanged_and_created_files(tmp_path) -> None:
    record = ChangeRecord(tmp_path)
    same = tmp_path / "same.txt"
    same.write_text("x\n")
    agent_writes(record, same, b"x\n")
    new = tmp_path / "sub" / "new.txt"
    new.parent.mkdir()
    agent_writes(record, new, b"hello\n")
    [changed] = record.files()
    assert changed.rel == "sub/new.txt" and changed.created and changed.added == 1
    assert record.revert("sub/new.txt") == "deleted sub/new.txt, which this session created"
    assert not new.exists() and record.files() == []


def test_revert_one_hunk_keeps_the_other(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(OLD.replace("\n", "\r\n").encode())
    record = ChangeRecord(tmp_path)
    agent_writes(record, path, NEW.replace("\n", "\r\n").encode())
    assert record.revert("f.txt", 1) == "reverted hunk 2 of 2 in f.txt"
    expected = OLD.replace("line 2\n", "line two\n")
    assert path.read_bytes() == expected.replace("\n", "\r\n").encode()
    [note] = record.take_notes()
    assert "reverted this change in f.txt" in note and "+line twenty-eight" in note
    assert record.take_notes() == []
    [changed] = record.files()
    assert len(changed.hunks) == 1 and not changed.changed_outside


def test_revert_file_restores_the_exact_bytes(tmp_path) -> None:
    path = tmp_path / "f.txt"
    original = b"\xef\xbb\xbfcaf\xc3\xa9\r\n"
    path.write_bytes(original)
    record = ChangeRecord(tmp_path)
    agent_writes(record, path, b"tea\n")
    assert record.revert("f.txt").startswith("restored f.txt")
    assert path.read_bytes() == original
    assert "reverted all of this session's changes to f.txt" in record.take_notes()[0]


def test_changes_outside_the_agent_are_flagged(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    record = ChangeRecord(tmp_path)
    agent_writes(record, path, NEW.encode())
    path.write_text(NEW + "user line\n")
    [changed] = record.files()
    assert changed.changed_outside


def test_bad_reverts_say_why(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    record = ChangeRecord(tmp_path)
    agent_writes(record, path, NEW.encode())
    with pytest.raises(ChangeError, match="not changed by the agent"):
        record.revert("other.txt")
    with pytest.raises(ChangeError, match="has 2 hunks; there is no hunk 5"):
        record.revert("f.txt", 4)
    assert path.read_text() == NEW  # nothing lost
    binary = tmp_path / "b.bin"
    agent_writes(record, binary, b"\x00\x01")
    with pytest.raises(ChangeError, match="binary"):
        record.revert("b.bin", 0)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_diff_stat(tmp_path) -> None:
    assert await git_diff_stat(tmp_path) is None  # not a repository
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f.txt").write_text(OLD)
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    (tmp_path / "f.txt").write_text(NEW)
    stat = await git_diff_stat(tmp_path)
    assert stat is not None and "f.txt | 4 ++--" in stat and "1 file changed" in stat


async def test_the_model_reads_the_revert_at_its_next_step(fake_llm, tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    edit = tool_call("edit_file", {"path": "f.txt", "old_string": OLD, "new_string": NEW})
    read = tool_call("read_file", {"path": "f.txt"})
    fake_llm.push(tool_calls(read), tool_calls(edit), text("edited"), text("noted"))
    session = make_session(fake_llm, tmp_path, mode="accept-edits")
    session.send("edit it")
    await asyncio.wait_for(session.wait_idle(), 30)
    assert path.read_text() == NEW
    done = await session.revert("f.txt", 0)
    assert done == "reverted hunk 1 of 2 in f.txt"
    assert path.read_text() == OLD.replace("line 28\n", "line twenty-eight\n")
    assert any(n.text == f"reverted: {done}" for n in of_type(session, ev.Notice))
    session.send("go on")
    await asyncio.wait_for(session.wait_idle(), 30)
    last = user_texts(fake_llm.requests[-1])
    assert last[-2] == "go on"
    assert "the user reverted this change in f.txt" in last[-1] and "-line 2" in last[-1]
    await session.close()


# ---- the Changes screen ---------------------------------------------------------------


def changes_screen(app):
    from vibe_tui.screens.changes import ChangesScreen

    return app.screen if isinstance(app.screen, ChangesScreen) else None


async def test_changes_screen_lists_files_and_reverts_a_hunk(fake_llm, tmp_path) -> None:
    from vibe_tui.screens.changes import ChangesScreen, ConfirmScreen

    (tmp_path / "f.txt").write_text(OLD)
    (tmp_path / "g.txt").write_text("g\n")
    fake_llm.push(tool_calls(
        tool_call("read_file", {"path": "f.txt"}),
        tool_call("edit_file", {"path": "f.txt", "old_string": OLD, "new_string": NEW}),
        tool_call("read_file", {"path": "g.txt"}),
        tool_call("write_file", {"path": "g.txt", "content": "G\n"})), text("done"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        app.session.send("edit")
        await wait_for(pilot, lambda: not app.session.running
                       and of_type(app.session, ev.TurnEnded), what="turn end")
        app.push_screen(ChangesScreen(app.session))
        await wait_for(pilot, lambda: changes_screen(app) is not None
                       and changes_screen(app).loaded, what="changes screen")
        screen = changes_screen(app)
        text_now = screen_text(app)
        assert "f.txt" in text_now and "g.txt" in text_now and "+2 -2" in text_now
        # The second hunk of f.txt: j moves between hunks.
        await pilot.press("j")
        await wait_for(pilot, lambda: screen.diff_view.selected_hunk == 1, what="hunk 2")
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        assert "hunk 2 of 2 in f.txt" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: (tmp_path / "f.txt").read_text()
                       == OLD.replace("line 2\n", "line two\n"), what="hunk reverted")
        await wait_for(pilot, lambda: app.screen is screen and screen.loaded
                       and len(screen.files[0].hunks) == 1, what="reloaded")
        # A whole file, refused at the confirmation: nothing happens.
        await pilot.press("down")  # the file list: g.txt
        await wait_for(pilot, lambda: screen.current is not None
                       and screen.current.rel == "g.txt", what="g.txt")
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, what="back")
        assert (tmp_path / "g.txt").read_text() == "G\n"
        await pilot.press("escape")
        await wait_for(pilot, lambda: changes_screen(app) is None, what="closed")


async def test_changes_screen_shows_a_file_named_with_an_escape_sequence_as_it_is(
        fake_llm, tmp_path) -> None:
    from textual.widgets import Static

    from vibe_tui.screens.changes import ChangesScreen, ConfirmScreen

    name, shown = "esc\x1b]0;X\x07.txt", "esc\\x1b]0;X\\x07.txt"
    fake_llm.push(tool_calls(tool_call("write_file", {"path": name, "content": "x\n"})),
                  text("done"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        app.session.send("write")
        await wait_for(pilot, lambda: not app.session.running
                       and of_type(app.session, ev.TurnEnded), what="turn end")
        app.push_screen(ChangesScreen(app.session))
        await wait_for(pilot, lambda: changes_screen(app) is not None
                       and changes_screen(app).loaded, what="changes screen")
        listed = changes_screen(app).query_one("FileList").get_option_at_index(0).prompt
        assert str(listed).startswith(f"{shown}  new")
        assert f"{shown}  new" in screen_text(app)
        # The revert confirmation names the file as it is, too.
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        question = str(app.screen.query_one("#question", Static).content)
        assert f"Revert every change to {shown}: delete it" in question
        await pilot.press("n")


async def test_changes_screen_with_nothing_changed(fake_llm, tmp_path) -> None:
    from vibe_tui.screens.changes import ChangesScreen

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(ChangesScreen(app.session))
        await wait_for(pilot, lambda: changes_screen(app) is not None
                       and changes_screen(app).loaded, what="changes screen")
        assert "No file has been changed by the agent in this session" in screen_text(app)
        await pilot.press("r")  # nothing to revert: no confirmation, no error
        await pilot.pause()
        assert changes_screen(app) is not None

