"""A tiny app that opens the Changes screen over a real session whose agent edited two
files of a scratch workspace (not a git repository), for snapshot tests."""

from __future__ import annotations

import tempfile
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Static

from vibe_tui.config.settings import Config
from vibe_tui.core.session import Session
from vibe_tui.screens.changes import ChangesScreen

OLD = "".join(f"value_{n} = {n}\n" for n in range(1, 25))
NEW = OLD.replace("value_3 = 3\n", "value_3 = 30\n").replace(
    "value_20 = 20\n", "value_20 = 200\nvalue_20b = 201\n")


def edited_session() -> Session:
    workspace = Path(tempfile.mkdtemp(prefix="vibe-changes-"))
    session = Session(Config(sandbox="off"), workspace, persist=False)
    for name, before, after in (("src/values.py", OLD, NEW), ("todo.md", None, "# To do\n")):
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if before is not None:
            path.write_text(before)
        session.changes.remember([path])  # what the loop does around an edit tool
        path.write_text(after)
        session.changes.touched([path])
    return session


class ChangesApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("vibe-tui: the conversation would be here")

    def on_mount(self) -> None:
        self.push_screen(ChangesScreen(edited_session()))
