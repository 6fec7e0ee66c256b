"""The look before and after a command: what it created, changed and deleted, with each
file's earlier content, in a git repository and outside one, and its bounds."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from engine_helpers import make_session, run_turn

from vibe_tui.core import workspace_scan
from vibe_tui.core.workspace_scan import WorkspaceWatch
from vibe_tui.testing.script import text, tool_call, tool_calls


def command(workspace: Path, script) -> None:
    """What a command does to the workspace, played in-process."""
    script(workspace)


async def changes_of(workspace: Path, script) -> tuple[dict[str, bytes | None], list[str]]:
    watch = WorkspaceWatch(workspace)
    before = await watch.look()
    script(workspace)
    changed, notes = await watch.changes_since(before)
    return {c.path.relative_to(workspace).as_posix(): c.before for c in changed}, notes


def a_project(path: Path) -> None:
    (path / "kept.txt").write_text("kept\n")
    (path / "edited.txt").write_text("before\n")
    (path / "gone.txt").write_text("gone\n")
    (path / "node_modules").mkdir()
    (path / "node_modules" / "dep.js").write_text("x\n")


def a_command(path: Path) -> None:
    (path / "edited.txt").write_text("after\n")
    (path / "gone.txt").unlink()
    (path / "sub").mkdir()
    (path / "sub" / "made.txt").write_text("made\n")
    (path / "kept.txt").touch()  # a new time, the same content: no change
    (path / "node_modules" / "dep.js").write_text("y\n")  # a skipped folder


async def test_outside_git_a_walk_finds_what_a_command_changed(tmp_path) -> None:
    a_project(tmp_path)
    changed, notes = await changes_of(tmp_path, a_command)
    assert changed == {"edited.txt": b"before\n", "gone.txt": b"gone\n", "sub/made.txt": None}
    assert notes == []


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_in_git_the_index_gives_the_earlier_content(tmp_path) -> None:
    a_project(tmp_path)
    (tmp_path / ".gitignore").write_text("node_modules/\nbuild/\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    (tmp_path / "kept.txt").write_text("dirty before the command\n")  # not the index's

    def and_more(path: Path) -> None:
        a_command(path)
        (path / "kept.txt").write_text("dirty, then changed\n")
        (path / "build").mkdir()
        (path / "build" / "out.o").write_text("ignored\n")

    changed, notes = await changes_of(tmp_path, and_more)
    assert changed == {"edited.txt": b"before\n", "gone.txt": b"gone\n", "sub/made.txt": None,
                       "kept.txt": b"dirty before the command\n"}
    assert notes == []


async def test_past_its_bound_a_look_says_so_and_records_nothing(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(workspace_scan, "MAX_FILES", 2)
    a_project(tmp_path)
    changed, notes = await changes_of(tmp_path, a_command)
    assert changed == {}
    assert notes == ["the workspace has more than 2 files: what commands change in it is "
                     "not recorded"]


async def test_a_file_too_large_to_keep_is_named_not_recorded(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(workspace_scan, "KEEP_FILE_MAX_BYTES", 4)
    a_project(tmp_path)
    changed, notes = await changes_of(tmp_path, a_command)
    assert changed == {"sub/made.txt": None}
    # Its size or time moved, its earlier bytes are unknown: whether it changed is too.
    assert notes == [f"a command touched {name}, too large to have been kept: what it did "
                     "to it cannot be reverted" for name in ("edited.txt", "gone.txt", "kept.txt")]


async def test_the_model_reads_when_a_command_could_not_be_recorded(fake_llm, tmp_path,
                                                                    monkeypatch) -> None:
    monkeypatch.setattr(workspace_scan, "MAX_FILES", 1)
    a_project(tmp_path)
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch new.txt"})), text("done"))
    session = make_session(fake_llm, tmp_path, mode="yolo")
    await run_turn(session, "touch it")
    result = [m for m in fake_llm.requests[-1]["messages"] if m["role"] == "tool"][0]
    assert "more than 1 files: what commands change in it is not recorded" in result["content"]
    assert session.changes.files() == []
    await session.close()


async def test_a_read_only_command_is_not_looked_around(fake_llm, tmp_path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    fake_llm.push(tool_calls(tool_call("bash", {"command": "cat a.txt"})), text("done"))
    session = make_session(fake_llm, tmp_path)
    looks = []
    original = session.changes.watch.look

    async def counted():
        looks.append(1)
        return await original()

    session.changes.watch.look = counted
    await run_turn(session, "read it")
    assert looks == []
    await session.close()
