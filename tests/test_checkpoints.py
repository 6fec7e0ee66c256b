"""Checkpoints and /rewind: files put back as they were before a turn, after --resume too."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_helpers import make_session, run_turn
from vibe_tui.config.settings import Config
from vibe_tui.core.session import Session
from vibe_tui.testing.script import text, tool_call, tool_calls


def write(path: str, content: str):
    # write_file replaces only a file the model has read (a new file needs no read).
    return tool_calls(tool_call("read_file", {"path": path}),
                      tool_call("write_file", {"path": path, "content": content}))


async def test_rewind_restores_files_after_a_resume_and_the_model_hears_of_it(fake_llm,
                                                                              tmp_path: Path):
    (tmp_path / "b.txt").write_text("b original\n")
    fake_llm.push(write("a.txt", "a new\n"), write("b.txt", "b turn 1\n"), text("turn 1 done"),
                  write("b.txt", "b turn 2\n"), text("turn 2 done"),
                  text("noted"), text("noted again"))
    session = make_session(fake_llm, tmp_path, mode="accept-edits")
    await run_turn(session, "create a, change b")
    await run_turn(session, "change b again")
    assert (tmp_path / "b.txt").read_text() == "b turn 2\n"
    assert session.checkpoints.turns() == {1: ["a.txt", "b.txt"], 2: ["b.txt"]}
    await session.close()

    resumed = Session.resume(Config(model=fake_llm.model, api_base=fake_llm.base_url,
                                    mode="accept-edits"), tmp_path, session.store_path)
    lines = await resumed.rewind(2)
    assert lines == ["b.txt: restored"]
    assert (tmp_path / "b.txt").read_text() == "b turn 1\n"
    await run_turn(resumed, "what happened?")
    told = [m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"]
    assert any("restored files to how they were before turn 2: b.txt: restored" in m
               for m in told)

    lines = await resumed.rewind(1)
    assert sorted(lines) == ["a.txt: removed (created later)", "b.txt: restored"]
    assert not (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").read_text() == "b original\n"
    await resumed.close()


async def test_nothing_to_rewind_is_a_clear_error(fake_llm, tmp_path: Path):
    fake_llm.push(text("just talk"))
    session = make_session(fake_llm, tmp_path)
    await run_turn(session, "hello")
    with pytest.raises(ValueError, match="no file was changed in turn 1"):
        await session.rewind(1)
    await session.close()
