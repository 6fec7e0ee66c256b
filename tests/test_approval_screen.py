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
from vibe_tui.screens.approval import ApprovalChoice, ApprovalScreen
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
    command = "echo hi\x1b]52;c;ZXZpbA==\x07 \x1b]0;pwned\x07\x1b[2J\x07 [bold]x[/bold] \u202eevil"
    app = Host(ApprovalScreen(request(args={"command": command})))
    async with app.run_test(size=(100, 30)) as pilot:
        modal = await open_modal(pilot, app)
        shown = str(modal.query_one("#command", Static).render())
        assert shown == "echo hi \\x07 [bold]x[/bold] \\u202eevil"
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "ZXZpbA" not in svg and "pwned" not in svg
        assert "echo hi \\x07 [bold]x[/bold] \\u202eevil" in screen_text(app)


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
