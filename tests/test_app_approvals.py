"""Approvals in the app: the modal answers through the real Session, queues, and closes
when someone else answered first."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    events_of,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    tool_messages,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.screens.approval import ApprovalScreen
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.widgets.conversation import Entry


def bash(command: str, call_id: str | None = None):
    return tool_call("bash", {"command": command}, id=call_id)


def modal(app) -> ApprovalScreen | None:
    return app.screen if isinstance(app.screen, ApprovalScreen) else None


def position_text(app) -> str:
    return str(app.screen.query_one("#position").content)


def notices(app) -> list[str]:
    return [str(e.content) for e in app.conversation.query(Entry).filter(".-notice")]


async def wait_modal(pilot, approval_id: str | None = None) -> ApprovalScreen:
    app = pilot.app
    await wait_for(pilot, lambda: modal(app) is not None and (
        approval_id is None or modal(app).request.approval_id == approval_id),
        what=f"approval modal {approval_id or ''}")
    return modal(app)


async def test_y_allows_the_call(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("echo hi > out.txt")), text("written"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        screen = await wait_modal(pilot)
        assert screen.request.tool == "bash"
        item = app.conversation.query_one("ToolCallItem")
        assert item.state == "waiting"
        await pilot.press("y")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "out.txt").read_text() == "hi\n"
        resolved = events_of(app.session, ev.ApprovalResolved)
        assert [(r.decision, r.answered_by) for r in resolved] == [("allow", "tui")]
        await wait_for(pilot, lambda: item.state == "ok", what="item ok")
        assert modal(app) is None
        assert notices(app) == []  # our own answer needs no notice


async def test_a_always_allows_and_covers_the_queued_call(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("touch one.txt"), bash("touch two.txt")), text("both done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "touch both")
        await wait_modal(pilot)
        await wait_for(pilot, lambda: position_text(app) == "1 of 2", what="1 of 2")
        await pilot.press("a")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "one.txt").exists() and (tmp_path / "two.txt").exists()
        assert "Bash(touch:*)" in app.session.grants
        resolved = events_of(app.session, ev.ApprovalResolved)
        assert [(r.decision, r.answered_by) for r in resolved] == [("always", "tui"),
                                                          ("allow", "tui (always)")]
        await wait_for(pilot, lambda: any("earlier “always” answer" in n for n in notices(app)),
                       what="always notice")
        assert modal(app) is None


async def test_d_denies_with_a_note_the_model_reads(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("rm -rf build", "call_rm")), text("ok, I will not"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "clean up")
        await wait_modal(pilot)
        await pilot.press("d")
        await pilot.press(*"use git clean")
        await pilot.press("enter")
        await wait_turns_ended(pilot, app.session)
        answer = tool_messages(fake_llm.requests[1])
        assert answer[0]["tool_call_id"] == "call_rm"
        assert "use git clean" in answer[0]["content"]
        item = app.conversation.tool_item("call_rm")
        assert item.state == "denied"


async def test_two_approvals_queue_one_of_two(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("touch a.txt"), bash("mkdir b")), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "two things")
        first = await wait_modal(pilot)
        await wait_for(pilot, lambda: position_text(app) == "1 of 2", what="1 of 2")
        await pilot.press("y")
        second = await wait_modal(pilot, "ap2")
        assert second is not first and second.request.args["command"] == "mkdir b"
        assert position_text(app) == "2 of 2"
        await pilot.press("n")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "a.txt").exists() and not (tmp_path / "b").exists()
        results = {r.call_id: r.status for r in events_of(app.session, ev.ToolResult)}
        assert sorted(results.values()) == ["denied", "ok"]


async def test_answer_from_another_view_closes_the_modal(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("touch web.txt")), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        screen = await wait_modal(pilot)
        outcome = app.session.answer(screen.request.approval_id, "allow", by="web")
        assert outcome.accepted
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: modal(app) is None, what="modal closed")
        assert any("answered in web: allowed" in n for n in notices(app))
        assert (tmp_path / "web.txt").exists()


async def test_escape_in_the_modal_denies_rather_than_interrupts(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("touch no.txt")), text("fine"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_modal(pilot)
        await pilot.press("escape")
        await wait_turns_ended(pilot, app.session)
        assert events_of(app.session, ev.TurnEnded)[-1].state == "completed"
        assert not (tmp_path / "no.txt").exists()


# ---- edits reviewed hunk by hunk (needs VibeApp._answer to pass hunks and mode, and
# ---- _follow_approval to hand an edit to the modal on screen with add_file) -----------

OLD = "".join(f"line {n}\n" for n in range(1, 31))
NEW = OLD.replace("line 2\n", "line two\n").replace("line 15\n", "line fifteen\n").replace(
    "line 28\n", "line twenty-eight\n")


def edit(path: str, old: str, new: str, call_id: str | None = None):
    return tool_call("edit_file", {"path": path, "old_string": old, "new_string": new},
                     id=call_id)


def read(*paths: str):
    """The step before an edit: edit_file takes only a file the model has read."""
    return tool_calls(*(tool_call("read_file", {"path": path}) for path in paths))


async def test_keep_two_of_three_hunks_from_the_keyboard(fake_llm, tmp_path):
    (tmp_path / "f.txt").write_text(OLD)
    fake_llm.push(read("f.txt"), tool_calls(edit("f.txt", OLD, NEW, "call_edit")),
                  text("carrying on"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "rename three lines")
        screen = await wait_modal(pilot)
        assert screen.diff_view is not None and screen.diff_view.hunk_count == 3
        await pilot.press("j", "space", "y")  # leave the second hunk out
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "f.txt").read_text() == OLD.replace(
            "line 2\n", "line two\n").replace("line 28\n", "line twenty-eight\n")
        [result] = tool_messages(fake_llm.requests[2])[-1:]
        assert "applied 2 hunks of 3 (hunk 1 and 3) and rejected hunk 2" in result["content"]
        assert "+line fifteen" in result["content"]


async def test_a_on_an_edit_applies_and_accepts_later_edits(fake_llm, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    fake_llm.push(read("a.txt", "b.txt"), tool_calls(edit("a.txt", "a\n", "A\n")),
                  tool_calls(edit("b.txt", "b\n", "B\n")), text("both"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "edit both")
        await wait_modal(pilot)
        await pilot.press("a")
        await wait_turns_ended(pilot, app.session)
        assert app.session.mode == "accept-edits"
        assert (tmp_path / "b.txt").read_text() == "B\n"  # asked nothing more
        assert len(events_of(app.session, ev.ApprovalRequested)) == 1


async def test_edits_of_one_response_share_one_modal_with_a_file_list(fake_llm, tmp_path):
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(f"{name}\n")
    fake_llm.push(read("a.txt", "b.txt", "c.txt"),
                  tool_calls(*(edit(f"{n}.txt", f"{n}\n", f"{n.upper()}\n") for n in "abc")),
                  text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "edit three files")
        screen = await wait_modal(pilot)
        await wait_for(pilot, lambda: screen.covers("ap3"), what="three files in one modal")
        await pilot.press("y", "n", "y")
        await wait_turns_ended(pilot, app.session)
        assert [(tmp_path / f"{n}.txt").read_text() for n in "abc"] == ["A\n", "b\n", "C\n"]
        resolved = {r.approval_id: r.decision for r in events_of(app.session, ev.ApprovalResolved)}
        assert resolved == {"ap1": "allow", "ap2": "deny", "ap3": "allow"}
        assert modal(app) is None


# A file name carrying a window-title sequence: dropping the sequence would show another
# file's name (esc.txt); the user must see the real one, inert.
OSC_NAME = "esc\x1b]0;X\x07.txt"
OSC_SHOWN = "esc\\x1b]0;X\\x07.txt"


async def test_an_edit_to_a_file_named_with_an_escape_sequence_shows_the_real_name(
        fake_llm, tmp_path):
    fake_llm.push(tool_calls(tool_call("write_file", {"path": OSC_NAME, "content": "hi\n"})),
                  text("written"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        screen = await wait_modal(pilot)
        assert str(screen.query_one("#path").render()) == OSC_SHOWN
        shown = screen_text(app)
        assert f"{OSC_SHOWN}  new file" in shown  # the diff's file header
        assert "\x1b" not in app.export_screenshot()
        await pilot.press("y")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / OSC_NAME).read_text() == "hi\n"


async def test_a_command_shows_its_escape_sequences_in_the_modal(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash(f"cat {OSC_NAME}")), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "show it")
        screen = await wait_modal(pilot)
        assert str(screen.query_one("#command").render()) == f"cat {OSC_SHOWN}"
        assert f"cat {OSC_SHOWN}" in screen_text(app)
        await pilot.press("n")
        await wait_turns_ended(pilot, app.session)


# ---- a one-line command is a compact modal over the conversation ---------------------

async def test_a_one_line_command_is_a_compact_box_over_the_conversation(fake_llm, tmp_path):
    fake_llm.push(tool_calls(bash("touch always.txt")), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "make the file")
        screen = await wait_modal(pilot)
        await pilot.pause()
        dialog = screen.query_one("#dialog")
        assert dialog.outer_size.height <= 12  # sized to its content, not the terminal
        shown = screen_text(app)
        for part in ("Approve bash?", "touch always.txt", "touch writes files",
                     "y allow · a always · n deny · d deny with note"):
            assert part in shown
        assert "make the file" in shown  # the conversation stays in sight around it
        await pilot.press("y")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "always.txt").exists()


async def test_a_multi_line_command_keeps_the_full_approval_screen(fake_llm, tmp_path):
    script = "\n".join(f"touch step{n}.txt" for n in range(1, 31))
    fake_llm.push(tool_calls(bash(script)), text("done"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "run the steps")
        screen = await wait_modal(pilot)
        await pilot.pause()
        assert not screen.compact
        assert screen.query_one("#dialog").outer_size.height > 30
        assert app.focused is screen.query_one("#approval-body")  # the arrows scroll it
        assert "touch step1.txt" in screen_text(app)
        await pilot.press("n")
        await wait_turns_ended(pilot, app.session)
