"""The approval modal, driven with the pilot: keys, grace period, settling, rendering."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from vibe_tui.core.events import ApprovalRequested
from vibe_tui.screens.approval import ApprovalScreen
from vibe_tui.screens.approval_choice import ApprovalChoice
from vibe_tui.widgets.diff_view import DiffView

DIFF = "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"


def request(**changes: object) -> ApprovalRequested:
    base = ApprovalRequested(
        id=3,
        turn_id=1,
        ts=0.0,
        approval_id="ap-1",
        call_id="call-1",
        tool="bash",
        args={"command": "npm test"},
        reason="not in the allow list",
        grant="Bash(npm test:*)",
    )
    return replace(base, **changes)


class Host(App[None]):
    """Pushes the modal on mount and records what it was dismissed with."""

    def __init__(self, modal: ApprovalScreen) -> None:
        super().__init__()
        self.modal = modal
        self.results: list[ApprovalChoice | None] = []
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield Static("main screen")

    def on_mount(self) -> None:
        self.push_screen(self.modal, self.results.append)

    def bell(self) -> None:
        self.bells += 1


@pytest.fixture(autouse=True)
def no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalScreen, "KEY_GRACE_S", 0.0)


async def wait_until(
    pilot: Pilot[Any], condition: Callable[[], object], timeout: float = 5.0
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.01)


def screen_text(app: App[None]) -> str:
    """What the terminal shows, as text, read back from the SVG screenshot (public API).

    Rich's SVG places each run of text at x = column * 12.2 and leaves blank runs out,
    so runs are put back at their columns."""
    svg = app.export_screenshot()
    rows: dict[float, dict[int, str]] = {}
    for match in re.finditer(r'<text [^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y, text = match.groups()
        text = html.unescape(text).replace("\xa0", " ")
        rows.setdefault(float(y), {})[round(float(x) / 12.2)] = text
    lines = []
    for _, runs in sorted(rows.items()):
        line = ""
        for column, text in sorted(runs.items()):
            line = line.ljust(column) + text
        lines.append(line)
    return "\n".join(lines)


async def open_modal(pilot: Pilot[Any], app: Host) -> ApprovalScreen:
    await wait_until(pilot, lambda: app.screen is app.modal and app.modal.is_mounted)
    await pilot.pause()
    return app.modal


@pytest.mark.parametrize(
    ("key", "decision"), [("y", "allow"), ("a", "always"), ("n", "deny"), ("escape", "deny")]
)
async def test_single_keys_answer(key: str, decision: str) -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        await open_modal(pilot, app)
        await pilot.press(key)
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice(decision)]
        assert app.screen is not app.modal


async def test_deny_with_note() -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        note = modal.query_one("#note", Input)
        assert not note.display
        await pilot.press("d")
        await wait_until(pilot, lambda: note.has_focus)
        assert note.display
        # Answer keys typed into the note are text, not answers.
        await pilot.press(*"nay, use yarn")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("deny", "nay, use yarn")]


async def test_escape_in_the_note_goes_back_to_the_keys() -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        await pilot.press("d")
        note = modal.query_one("#note", Input)
        await wait_until(pilot, lambda: note.has_focus)
        await pilot.press("x", "escape")
        await wait_until(pilot, lambda: not note.display)
        assert app.results == []
        assert app.screen is modal
        assert "deny with note" in str(modal.query_one("#hints", Static).render())
        await pilot.press("y")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("allow")]


async def test_keys_inside_the_grace_period_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    # Long enough that the pilot's presses (tens of ms each) land inside it.
    grace = 0.8
    monkeypatch.setattr(ApprovalScreen, "KEY_GRACE_S", grace)
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        await pilot.press("y", "n", "escape", "d")  # typed through from the prompt
        pressed = time.monotonic()
        await pilot.pause(0.1)
        assert app.results == []
        assert app.screen is modal and not modal.noting
        # The modal opened before open_modal returned, so this is past the grace.
        await wait_until(pilot, lambda: time.monotonic() > pressed + grace)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("allow")]


async def test_always_is_hidden_and_inert_without_a_grant() -> None:
    app = Host(ApprovalScreen(request(grant=None)))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        assert not modal.query("#grant")
        text = screen_text(app)
        assert "always" not in text
        assert "y allow · n deny · d deny with note" in text
        await pilot.press("a")
        await pilot.pause()
        assert app.results == [] and app.screen is modal
        await pilot.press("n")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("deny")]


async def test_grant_is_shown() -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_modal(pilot, app)
        text = screen_text(app)
        assert "a: always allow Bash(npm test:*) for this session" in text
        assert "Approve bash?" in text
        assert "not in the allow list" in text


async def test_settled_elsewhere_closes_with_none() -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        modal.settled_elsewhere("web", "allow")
        await wait_until(pilot, lambda: app.screen is not modal)
        await pilot.press("y")
        await pilot.pause()
        assert app.results == [None]


async def test_settled_while_covered_closes_when_uncovered() -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        cover = Screen()
        await app.push_screen(cover)
        modal.settled_elsewhere("web", "deny")
        await pilot.pause()
        assert app.screen is cover and app.results == []
        app.pop_screen()
        await wait_until(pilot, lambda: app.results == [None])
        await wait_until(pilot, lambda: modal not in app.screen_stack)


async def test_position_label() -> None:
    app = Host(ApprovalScreen(request(), position=1, total=3))
    async with app.run_test() as pilot:
        modal = await open_modal(pilot, app)
        label = modal.query_one("#position", Static)
        assert str(label.render()) == "1 of 3"
        modal.set_position(2, 3)
        await pilot.pause()
        assert str(label.render()) == "2 of 3"
        assert "2 of 3" in screen_text(app)
        modal.set_position(1, 1)
        await pilot.pause()
        assert "of" not in str(label.render())


def test_set_position_before_mount_is_kept() -> None:
    modal = ApprovalScreen(request())
    modal.set_position(4, 5)
    assert modal._position_text() == "4 of 5"


async def test_bell_rings_on_open() -> None:
    app = Host(ApprovalScreen(request()))
    async with app.run_test() as pilot:
        await open_modal(pilot, app)
        assert app.bells == 1


async def test_unsafe_command_is_shown_escaped_not_run_by_the_terminal() -> None:
    # The user approves what will run: its sequences show, inert, rather than vanish.
    command = "echo hi\x1b]52;c;ZXZpbA==\x07 \x1b[2J [bold]x[/bold] \u202eevil\n\techo \x9b2J"
    app = Host(ApprovalScreen(request(args={"command": command})))
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await open_modal(pilot, app)
        shown = str(modal.query_one("#command", Static).render())
        expected = ("echo hi\\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J [bold]x[/bold] \\u202eevil\n"
                    "\techo \\x9b2J")
        assert shown == expected
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x9b" not in svg and "\u202e" not in svg
        assert "echo hi\\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J [bold]x[/bold] \\u202eevil" in screen_text(app)


async def test_names_in_the_title_grant_and_arguments_show_their_controls_escaped() -> None:
    asked = request(tool="mcp__x__run\x1b]0;t\x07", grant="Bash(cat esc\x1b]0;X\x07:*)",
                    args={"path": "a\u202eb.txt", "mode": "c1\x9d0;X\x9c"})
    app = Host(ApprovalScreen(asked))
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await open_modal(pilot, app)
        assert str(modal.query_one("#title", Static).render()) == (
            "Approve mcp__x__run\\x1b]0;t\\x07?")
        assert "Bash(cat esc\\x1b]0;X\\x07:*)" in str(modal.query_one("#grant", Static).render())
        shown = str(modal.query_one("#arguments", Static).render())
        assert '"path": "a\\u202eb.txt"' in shown and '"mode": "c1\\x9d0;X\\x9c"' in shown


async def test_edit_shows_path_and_diff() -> None:
    edit = request(tool="edit_file", args={"path": "src/x.py"}, diff=DIFF, grant=None)
    app = Host(ApprovalScreen(edit))
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await open_modal(pilot, app)
        view = modal.query_one(DiffView)
        assert view.hunk_count == 1
        assert modal.focused is view  # arrows scroll the diff
        text = screen_text(app)
        assert "Approve edit_file?" in text
        assert "src/x.py" in text and "a = 2" in text


async def test_other_tools_show_their_arguments_as_json() -> None:
    fetch = request(tool="web_fetch", args={"url": "https://example.com", "max": 3})
    app = Host(ApprovalScreen(fetch))
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await open_modal(pilot, app)
        shown = str(modal.query_one("#arguments", Static).render())
        assert shown == '{\n  "url": "https://example.com",\n  "max": 3\n}'


# ---- reviewing an edit hunk by hunk ---------------------------------------------------

THREE_HUNKS = "".join(
    ["--- a/src/calc.py\n", "+++ b/src/calc.py\n"]
    + [f"@@ -{n},3 +{n},3 @@\n a = 1\n-b = {n}\n+b = {n + 1}\n c = 3\n" for n in (1, 20, 40)]
)


def edit(diff: str = THREE_HUNKS, approval_id: str = "ap-1", path: str = "src/calc.py",
         **changes: object) -> ApprovalRequested:
    return request(tool="edit_file", args={"path": path, "old_string": "x", "new_string": "y"},
                   diff=diff, grant="Edit(src/**)", approval_id=approval_id,
                   call_id=f"call-{approval_id}", **changes)


async def test_hunks_are_moved_through_and_toggled() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        modal = await open_modal(pilot, app)
        view = modal.query_one(DiffView)
        assert view.selected_hunk == 0 and view.kept_hunks == [0, 1, 2]
        await pilot.press("j", "down")
        assert view.selected_hunk == 2
        await pilot.press("k")
        assert view.selected_hunk == 1
        await pilot.press("space")
        assert view.kept_hunks == [0, 2]
        assert "✗ @@ -20,3 +20,3 @@" in screen_text(app)
        await pilot.press("space", "space")  # back in, and out again
        await pilot.press("up", "up")  # arrows too; stops at the first hunk
        assert view.selected_hunk == 0
        await pilot.press("y")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("allow", hunks=(0, 2))]


async def test_all_hunks_kept_is_a_plain_allow_and_none_kept_a_reject() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_modal(pilot, app)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("allow")]
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_modal(pilot, app)
        await pilot.press("space", "j", "space", "j", "space", "y")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("deny")]


async def test_a_applies_and_switches_to_accept_edits() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        modal = await open_modal(pilot, app)
        assert not modal.query("#grant")  # an edit's "a" is not the always-grant
        assert "apply + accept edits" in screen_text(app)
        await pilot.press("j", "space", "a")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("allow", hunks=(0, 2), mode="accept-edits")]


async def test_n_and_escape_reject_the_edit() -> None:
    for key in ("n", "escape"):
        app = Host(ApprovalScreen(edit()))
        async with app.run_test(size=(100, 40)) as pilot:
            await open_modal(pilot, app)
            await pilot.press(key)
            await wait_until(pilot, lambda: app.results)
            assert app.results == [ApprovalChoice("deny")]


@pytest.mark.parametrize(("width", "split"), [(139, False), (140, True)])
async def test_side_by_side_by_default_on_wide_terminals(width: int, split: bool) -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(width, 40)) as pilot:
        modal = await open_modal(pilot, app)
        view = modal.query_one(DiffView)
        assert view.split is split
        await pilot.press("t")
        assert view.split is not split
        lines = screen_text(app).splitlines()
        row = next(line for line in lines if "b = 1" in line)
        # Side by side, the old and the new line share a row with the separator between.
        assert ("b = 2" in row and "│" in row) is (not split)


async def test_f_toggles_full_screen() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await open_modal(pilot, app)
        dialog = modal.query_one("#dialog")
        assert dialog.size.width <= 110
        await pilot.press("f")
        await wait_until(pilot, lambda: modal.has_class("-full"))
        await wait_until(pilot, lambda: (dialog.outer_size.width, dialog.outer_size.height)
                         == (120, 40))
        await pilot.press("f")
        await wait_until(pilot, lambda: dialog.size.width <= 110)


async def test_note_keys_are_text_not_hunk_keys() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        modal = await open_modal(pilot, app)
        await pilot.press("d", *"just k j")
        assert modal.query_one("#note", Input).value == "just k j"
        assert modal.query_one(DiffView).selected_hunk == 0
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.results)
        assert app.results == [ApprovalChoice("deny", "just k j")]


async def test_several_edits_are_a_file_list_each_decided_on_its_own() -> None:
    first = edit()
    app = Host(ApprovalScreen(first))
    async with app.run_test(size=(100, 40)) as pilot:
        modal = await open_modal(pilot, app)
        files = modal.query_one("#files")
        assert not files.display
        assert modal.add_file(edit(approval_id="ap-2", path="src/two.py"))
        assert modal.add_file(edit(approval_id="ap-3", path="src/three.py"))
        assert not modal.add_file(request(approval_id="ap-4"))  # a command is queued apart
        assert not modal.add_file(edit(approval_id="ap-5", turn_id=2))  # another turn
        await pilot.pause()
        assert files.display
        text = screen_text(app)
        assert "Review edit_file · file 1 of 3" in text and "src/three.py  to review" in text
        await pilot.press("j", "space", "y")  # file 1: hunks 1 and 3; on to file 2
        await wait_until(pilot, lambda: "file 2 of 3" in screen_text(app))
        assert modal.query_one("#path", Static).render().plain == "src/two.py"
        assert "apply 2 of 3 hunks" in screen_text(app)
        await pilot.press("n")  # file 2 rejected
        await wait_until(pilot, lambda: "file 3 of 3" in screen_text(app))
        assert app.results == []
        await pilot.press("tab")  # around to file 1, decided already; back to 3
        await wait_until(pilot, lambda: "file 1 of 3" in screen_text(app))
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: "file 3 of 3" in screen_text(app))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.results)
        [choice] = app.results
        assert choice == ApprovalChoice("allow", hunks=(0, 2), others=(
            ("ap-2", ApprovalChoice("deny")), ("ap-3", ApprovalChoice("allow"))))
        assert [a for a, _ in choice.answers("ap-1")] == ["ap-2", "ap-3", "ap-1"]


async def test_a_in_a_file_list_applies_the_rest_and_switches_last() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        modal = await open_modal(pilot, app)
        modal.add_file(edit(approval_id="ap-2", path="src/two.py"))
        await pilot.press("n")  # file 1 rejected; file 2: "a"
        await wait_until(pilot, lambda: "file 2 of 2" in screen_text(app))
        await pilot.press("a")
        await wait_until(pilot, lambda: app.results)
        [choice] = app.results
        assert choice.answers("ap-1") == [
            ("ap-1", ApprovalChoice("deny", others=choice.others)),
            ("ap-2", ApprovalChoice("allow", mode="accept-edits")),
        ]


async def test_a_file_settled_elsewhere_leaves_the_others_to_decide() -> None:
    app = Host(ApprovalScreen(edit()))
    async with app.run_test(size=(100, 40)) as pilot:
        modal = await open_modal(pilot, app)
        modal.add_file(edit(approval_id="ap-2", path="src/two.py"))
        assert modal.covers("ap-2") and not modal.covers("ap-9")
        modal.settled_elsewhere("web", "allow")  # the first file, in the web view
        await wait_until(pilot, lambda: "answered: allow in web" in screen_text(app))
        assert app.screen is modal and "file 2 of 2" in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.results)
        [choice] = app.results
        assert choice.answers("ap-1") == [("ap-2", ApprovalChoice("allow"))]
