"""Helpers for the app's pilot tests: a real Session on the fake model server, and waits
on conditions (never sleeps)."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App
from textual.widget import Widget

from vibe_tui.app import VibeApp
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.session import Session
from vibe_tui.widgets.conversation import Entry

SIZE = (120, 40)


@pytest.fixture(scope="session", autouse=True)
def litellm_loaded() -> None:
    """LiteLLM's first import takes seconds: pay it once, not inside a test's timeout. The
    whole preload, so no app's first message waits for (and says it waits for) the client."""
    from vibe_tui.core.model import preload

    asyncio.run(preload())


@pytest.fixture(autouse=True)
def no_key_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The approval modal ignores keys for half a second after it opens; not in tests."""
    from vibe_tui.screens.approval import ApprovalScreen

    monkeypatch.setattr(ApprovalScreen, "KEY_GRACE_S", 0)


def make_app(llm, workspace: Path, **config) -> VibeApp:
    config.setdefault("model_retry_base_s", 0.01)
    session = Session(Config(model=llm.model, api_base=llm.base_url, **config), workspace=workspace)
    return VibeApp(session)


async def wait_for(pilot, predicate: Callable[[], object], timeout: float = 10,
                   what: str = "") -> None:
    """Let the app run until ``predicate()`` is true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await pilot.pause(0.05)


async def submit(pilot, text: str) -> None:
    """Put ``text`` in the prompt and press Enter. (Pilot waits for an idle CPU after
    each key: typing whole prompts key by key is slow on a busy machine. Tests of typing
    itself press keys.)"""
    pilot.app.prompt.insert(text)
    await pilot.press("enter")


def turn_endings(session: Session) -> list[ev.TurnEnded]:
    return [e for e in session.event_log if isinstance(e, ev.TurnEnded)]


async def wait_turns_ended(pilot, session: Session, count: int = 1, timeout: float = 15) -> None:
    await wait_for(pilot, lambda: len(turn_endings(session)) >= count and not session.running,
                   timeout, f"{count} turn(s) to end")


def events_of(session: Session, cls) -> list:
    return [e for e in session.event_log if isinstance(e, cls)]


def screen_text(app) -> str:
    """What the terminal shows, as plain text lines, read back from the SVG screenshot
    (each run of text sits at its cell's x position)."""
    svg = app.export_screenshot()
    rows: dict[int, dict[int, str]] = {}
    for match in re.finditer(
        r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" '
        r'clip-path="url\(#terminal-\d+-line-(\d+)\)">([^<]*)</text>', svg):
        x, line, text = float(match[1]), int(match[2]), html.unescape(match[3])
        rows.setdefault(line, {})[round(x / 12.2)] = text.replace("\xa0", " ")
    lines = []
    for line in sorted(rows):
        cells: list[str] = []
        for column, text in sorted(rows[line].items()):
            cells.extend(" " * (column - len(cells)))
            cells[column:column + len(text)] = list(text)
        lines.append("".join(cells).rstrip())
    return "\n".join(lines)


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def user_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def entries(app, classes: str) -> list[str]:
    """The text of the conversation's plain entries with ``classes`` (``.-notice``)."""
    return [str(entry.content) for entry in app.conversation.query(Entry).filter(classes)]


class OneWidget(App):
    """An app that shows one widget alone (the ``view``)."""

    def __init__(self, view: Widget) -> None:
        super().__init__()
        self.view = view

    def compose(self):
        yield self.view

