"""Partial acceptance of an edit: exactly the kept hunks land, and the model is told which
hunks were applied and which were rejected, with their text."""

from __future__ import annotations

import asyncio

import pytest
from engine_helpers import make_session, of_type, tool_messages, wait_until

from vibe_tui.core import events as ev
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.tools.base import ToolContext, ToolError
from vibe_tui.tools.file_read import ReadFileTool
from vibe_tui.tools.file_write import EditFileTool, WriteFileTool
from vibe_tui.tools.hunks import apply_hunks, split_hunks
from vibe_tui.tools.text_file import unified_diff

# Three changes far enough apart (more than 6 lines) to make three hunks.
OLD = "".join(f"line {n}\n" for n in range(1, 31))
NEW = OLD.replace("line 2\n", "line two\n").replace("line 15\n", "line fifteen\n").replace(
    "line 28\n", "line 28\nline 28.5\n")


def test_three_changes_make_three_hunks() -> None:
    hunks = split_hunks(unified_diff(OLD, NEW, "f.txt"))
    assert len(hunks) == 3
    assert hunks[1].startswith("@@ -12,7 +12,7 @@") and "+line fifteen" in hunks[1]


@pytest.mark.parametrize(("keep", "expected"), [
    ([0, 1, 2], NEW),
    ([], OLD),
    ([0, 2], OLD.replace("line 2\n", "line two\n").replace("line 28\n", "line 28\nline 28.5\n")),
    ([1], OLD.replace("line 15\n", "line fifteen\n")),
])
def test_apply_hunks_keeps_exactly_those(keep: list[int], expected: str) -> None:
    assert apply_hunks(OLD, NEW, keep) == expected


def test_apply_hunks_at_the_ends_and_without_final_newline() -> None:
    old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk"
    new = "A\nb\nc\nd\ne\nf\ng\nh\ni\nj\nK\n"
    assert len(split_hunks(unified_diff(old, new, "x"))) == 2
    assert apply_hunks(old, new, [1]) == "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nK\n"
    assert apply_hunks(old, new, [0]) == "A\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk"


async def test_edit_tool_writes_only_kept_hunks_and_says_so(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(OLD.replace("\n", "\r\n").encode())  # CRLF is kept
    context = ToolContext(workspace=tmp_path)
    tool = EditFileTool()
    args = {"path": "f.txt", "old_string": OLD, "new_string": NEW}
    await ReadFileTool().run({"path": "f.txt"}, context)  # edit_file edits what was read
    reviewed = await tool.preview(args, context)
    output = await tool.run_hunks(args, context, [0, 2], reviewed)
    expected = OLD.replace("line 2\n", "line two\n").replace("line 28\n", "line 28\nline 28.5\n")
    assert path.read_bytes() == expected.replace("\n", "\r\n").encode()
    assert output.ok
    assert "applied 2 hunks of 3 (hunk 1 and 3) and rejected hunk 2" in output.text
    rejected = output.text.split("Rejected hunk 2 (not applied):\n", 1)[1]
    assert rejected.startswith("@@ -12,7 +12,7 @@") and "+line fifteen" in rejected
    # The diff shown is the one that landed: no trace of the rejected hunk in it.
    assert "+line fifteen" not in output.diff and "+line two" in output.diff


async def test_edit_refused_when_the_file_changed_after_review(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    context = ToolContext(workspace=tmp_path)
    tool = EditFileTool()
    args = {"path": "f.txt", "old_string": "line 2\n", "new_string": "line two\n"}
    read = {"path": "f.txt"}
    await ReadFileTool().run(read, context)
    reviewed = await tool.preview(args, context)
    # A change outside the hunk leaves the reviewed diff as it was: it applies.
    path.write_text(OLD.replace("line 20\n", "line twenty\n"))
    await ReadFileTool().run(read, context)  # the model read it again: no stale-read refusal
    await tool.run_hunks(args, context, [0], reviewed)
    assert path.read_text() == OLD.replace("line 20\n", "line twenty\n").replace(
        "line 2\n", "line two\n")
    # A change inside it (its context) would make the hunk name other lines: refused.
    path.write_text(OLD.replace("line 4\n", "line four\n"))
    await ReadFileTool().run(read, context)
    with pytest.raises(ToolError, match="changed on disk after the user reviewed"):
        await tool.run_hunks(args, context, [0], reviewed)
    assert path.read_text() == OLD.replace("line 4\n", "line four\n")


async def test_write_file_over_an_existing_file_keeps_chosen_hunks(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    context = ToolContext(workspace=tmp_path)
    await ReadFileTool().run({"path": "f.txt"}, context)  # write_file replaces what was read
    tool = WriteFileTool()
    args = {"path": "f.txt", "content": NEW}
    reviewed = await tool.preview(args, context)
    output = await tool.run_hunks(args, context, [1], reviewed)
    assert path.read_text() == OLD.replace("line 15\n", "line fifteen\n")
    assert "rejected hunk 1 and 3" in output.text


async def test_session_applies_the_answered_hunks_and_the_model_reads_it(fake_llm, tmp_path):
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    edit = tool_call("edit_file", {"path": "f.txt", "old_string": OLD, "new_string": NEW},
                     id="call_edit")
    fake_llm.push(tool_calls(read_first("f.txt")), tool_calls(edit), text("ok"))
    session = make_session(fake_llm, tmp_path)
    session.send("edit it")
    await wait_until(lambda: of_type(session, ev.ApprovalRequested))
    request = of_type(session, ev.ApprovalRequested)[0]
    assert len(split_hunks(request.diff)) == 3
    outcome = session.answer(request.approval_id, "allow", hunks=[0, 2], by="user")
    assert outcome.accepted
    await asyncio.wait_for(session.wait_idle(), 30)
    assert path.read_text() == apply_hunks(OLD, NEW, [0, 2])
    result = tool_messages(fake_llm.requests[2])[-1]["content"]
    assert "rejected hunk 2" in result and "+line fifteen" in result
    # The change record saw it, for /diff.
    [changed] = session.changes.files()
    assert changed.rel == "f.txt" and len(changed.hunks) == 2
    await session.close()


async def test_no_hunk_kept_writes_nothing(fake_llm, tmp_path):
    path = tmp_path / "f.txt"
    path.write_text(OLD)
    edit = tool_call("edit_file", {"path": "f.txt", "old_string": "line 2\n",
                                   "new_string": "line two\n"})
    fake_llm.push(tool_calls(read_first("f.txt")), tool_calls(edit), text("ok"))
    session = make_session(fake_llm, tmp_path)
    session.send("edit it")
    await wait_until(lambda: of_type(session, ev.ApprovalRequested))
    session.answer(of_type(session, ev.ApprovalRequested)[0].approval_id, "allow", hunks=[])
    await asyncio.wait_for(session.wait_idle(), 30)
    assert path.read_text() == OLD
    result = of_type(session, ev.ToolResult)[-1]
    assert result.status == "denied" and "rejected every hunk" in result.output
    await session.close()


async def test_answer_can_switch_to_accept_edits(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    edits = [tool_call("edit_file", {"path": f"{n}.txt", "old_string": f"{n}\n",
                                     "new_string": f"{n.upper()}\n"}) for n in "ab"]
    fake_llm.push(tool_calls(read_first("a.txt"), read_first("b.txt")), tool_calls(*edits),
                  text("ok"))
    session = make_session(fake_llm, tmp_path)
    session.send("edit both")
    await wait_until(lambda: len(of_type(session, ev.ApprovalRequested)) == 2)
    first = of_type(session, ev.ApprovalRequested)[0]
    session.answer(first.approval_id, "allow", mode="accept-edits", by="tui")
    await asyncio.wait_for(session.wait_idle(), 30)
    assert session.mode == "accept-edits"
    assert (tmp_path / "a.txt").read_text() == "A\n" and (tmp_path / "b.txt").read_text() == "B\n"
    resolved = [(r.decision, r.answered_by) for r in of_type(session, ev.ApprovalResolved)]
    assert resolved == [("allow", "tui"), ("allow", "tui (accept-edits)")]
    await session.close()


def read_first(path: str):
    """edit_file takes only a file the model has read."""
    return tool_call("read_file", {"path": path})


def test_bad_hunks_or_mode_are_refused_with_a_message(tmp_path) -> None:
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session

    session = Session(Config(), tmp_path, persist=False)
    with pytest.raises(ValueError, match="hunk indexes"):
        session.answer("ap1", "allow", hunks=[-1])
    with pytest.raises(ValueError, match="mode must be one of"):
        session.answer("ap1", "allow", mode="sometimes")  # type: ignore[arg-type]
