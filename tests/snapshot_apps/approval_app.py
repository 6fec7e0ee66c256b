"""Tiny apps that open the approval modal on mount, for snapshot tests.

``snap_compare("snapshot_apps/approval_app.py:BashApprovalApp")`` picks one by name.
No keys are pressed in these tests, so the modal's key grace period does not matter.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult
from textual.widgets import Static

from vibe_tui.core.events import ApprovalRequested
from vibe_tui.screens.approval import ApprovalScreen

# Built from a list: context lines that are a lone space must survive editors that
# strip trailing whitespace.
EDIT_DIFF = "\n".join(
    [
        "--- a/src/calc.py",
        "+++ b/src/calc.py",
        "@@ -1,8 +1,9 @@",
        " import math",
        " ",
        " ",
        "-def area(r):",
        "-    return 3.14 * r * r",
        "+def area(radius: float) -> float:",
        '+    """Area of a circle."""',
        "+    return math.pi * radius**2",
        " ",
        " ",
        " def perimeter(r):",
        "@@ -20,3 +21,3 @@ def main():",
        "     for r in (1, 2, 3):",
        "-        print(area(r))",
        '+        print(f"{area(r):.2f}")',
        "     return 0",
        "",
    ]
)


def bash_request() -> ApprovalRequested:
    return ApprovalRequested(
        id=7,
        turn_id=1,
        ts=0.0,
        approval_id="ap-1",
        call_id="call-1",
        tool="bash",
        args={"command": "npm test -- --watch=false && git status --short", "timeout": 120},
        reason="bash: 'npm test' is not in the allow list",
        grant="Bash(npm test:*)",
    )


def edit_request() -> ApprovalRequested:
    return ApprovalRequested(
        id=9,
        turn_id=1,
        ts=0.0,
        approval_id="ap-2",
        call_id="call-2",
        tool="edit_file",
        args={"path": "src/calc.py"},
        reason="edits ask in the default mode",
        grant="Edit(src/**)",
        diff=EDIT_DIFF,
    )


class ApprovalSnapshotApp(App[None]):
    """A stand-in main screen with the modal pushed over it."""

    def __init__(self, request: ApprovalRequested, position: int = 1, total: int = 1) -> None:
        super().__init__()
        self.request = request
        self.position = (position, total)

    def compose(self) -> ComposeResult:
        yield Static("vibe-tui: the conversation would be here")

    def on_mount(self) -> None:
        self.push_screen(self.make_modal())

    def make_modal(self) -> ApprovalScreen:
        return ApprovalScreen(self.request, *self.position)


class BashApprovalApp(ApprovalSnapshotApp):
    def __init__(self) -> None:
        super().__init__(bash_request(), position=1, total=3)


class ScriptApprovalApp(ApprovalSnapshotApp):
    """A multi-line command: the full dialog, the script in a scrolling box."""

    def __init__(self) -> None:
        script = "set -e\nnpm ci\nnpm run build\nnpm test -- --watch=false\nrm -rf dist/tmp"
        super().__init__(replace(bash_request(), args={"command": script}))


class EditApprovalApp(ApprovalSnapshotApp):
    def __init__(self) -> None:
        super().__init__(edit_request())


def second_edit_request() -> ApprovalRequested:
    return ApprovalRequested(
        id=10,
        turn_id=1,
        ts=0.0,
        approval_id="ap-3",
        call_id="call-3",
        tool="edit_file",
        args={"path": "src/util.py"},
        reason="edits ask in the default mode",
        grant="Edit(src/**)",
        diff="--- a/src/util.py\n+++ b/src/util.py\n@@ -1,2 +1,2 @@\n-DEBUG = True\n+DEBUG = False\n LEVEL = 3\n",
    )


class EditFileListApp(ApprovalSnapshotApp):
    """Two edits of one response: the file list, the second hunk of the first left out."""

    def __init__(self) -> None:
        super().__init__(edit_request())

    def make_modal(self) -> ApprovalScreen:
        modal = ApprovalScreen(self.request)
        modal.add_file(second_edit_request())
        view = modal.diff_view
        view.select_hunk(1)
        view.toggle_hunk(1)
        return modal
