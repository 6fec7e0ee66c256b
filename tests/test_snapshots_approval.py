"""Snapshot tests of the approval modal, at fixed terminal sizes.

The snapshots live in ``snapshots/`` at the repository root, one folder per test
module. pytest-textual-snapshot 1.1.0 stores them through syrupy next to the test
(``tests/__snapshots__/``) and has no option for the folder, so this module overrides
syrupy's ``snapshot`` fixture with one whose SVG extension answers a different folder.
Update with ``uv run pytest tests/test_snapshots_approval.py --snapshot-update``.
"""

from __future__ import annotations

from typing import Any


APPS = "snapshot_apps/approval_app.py"


async def settle(pilot: Any) -> None:
    # The modal is pushed from on_mount: let it compose and lay out first.
    await pilot.pause()
    await pilot.pause()


def test_bash_approval(snap_compare: Any) -> None:
    """A one-line bash command with its grant, the second argument line and "1 of 3":
    the compact box."""
    assert snap_compare(f"{APPS}:BashApprovalApp", terminal_size=(100, 30), run_before=settle)


def test_bash_approval_80x24(snap_compare: Any) -> None:
    """A one-line command in the smallest terminal: a compact box over the conversation."""
    assert snap_compare(f"{APPS}:BashApprovalApp", terminal_size=(80, 24), run_before=settle)


def test_bash_approval_120x40(snap_compare: Any) -> None:
    """The same box in a roomy terminal: sized to its content, not to the screen."""
    assert snap_compare(f"{APPS}:BashApprovalApp", terminal_size=(120, 40), run_before=settle)


def test_script_approval(snap_compare: Any) -> None:
    """A multi-line command keeps the full dialog, its script in a scrolling box."""
    assert snap_compare(f"{APPS}:ScriptApprovalApp", terminal_size=(100, 30), run_before=settle)


def test_edit_approval(snap_compare: Any) -> None:
    """An edit: path, then the diff with gutters, colours and syntax."""
    assert snap_compare(f"{APPS}:EditApprovalApp", terminal_size=(100, 30), run_before=settle)


def test_edit_approval_80x24(snap_compare: Any) -> None:
    """The same edit in the smallest terminal we support: the diff scrolls, keys stay."""
    assert snap_compare(f"{APPS}:EditApprovalApp", terminal_size=(80, 24), run_before=settle)


def test_edit_approval_side_by_side(snap_compare: Any) -> None:
    """The same edit at 150 columns: side by side by default, old left, new right."""
    assert snap_compare(f"{APPS}:EditApprovalApp", terminal_size=(150, 30), run_before=settle)


def test_edit_file_list(snap_compare: Any) -> None:
    """Two edits of one response: the file list; the first file's second hunk left out."""
    assert snap_compare(f"{APPS}:EditFileListApp", terminal_size=(100, 34), run_before=settle)


async def settle_changes(pilot: Any) -> None:
    await settle(pilot)
    screen = pilot.app.screen
    for _ in range(500):  # the files are read in a worker: at most ten seconds
        if getattr(screen, "loaded", False):
            break
        await pilot.pause(0.02)
    assert screen.loaded
    await pilot.pause()


def test_changes_screen(snap_compare: Any) -> None:
    """The Changes screen: file list with counts, the cumulative diff, no git header."""
    assert snap_compare("snapshot_apps/changes_app.py:ChangesApp", terminal_size=(120, 30),
                        run_before=settle_changes)
