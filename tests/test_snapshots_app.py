"""Snapshot tests of the main screen, driven through the real Session and fake model.

Snapshots live in ``snapshots/test_snapshots_app/`` at the repository root, like the
approval modal's (see tests/test_snapshots_approval.py for why the ``snapshot`` fixture
is overridden). Update with ``uv run pytest tests/test_snapshots_app.py --snapshot-update``.

What would vary between runs is pinned: the workspace is a fixed path (the status bar
shows it, and the model's token counts depend on the system prompt that names it),
durations are hidden, the cursor does not blink, and the token count is drawn as a
constant: it follows the engine's system prompt, which is not what these tests look at.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app_helpers import (  # noqa: F401 - fixtures
    litellm_loaded,
    make_app,
    no_key_grace,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.screens.approval import ApprovalScreen
from vibe_tui.tools import sandbox
from vibe_tui.testing.fake_llm import FakeLLM
from vibe_tui.testing.script import hold, text, tool_call, tool_calls
from vibe_tui.widgets import status_bar
from vibe_tui.widgets.timeline_item import Durations

WORKSPACE = Path("/tmp/vibe-tui-snapshot/project")
ANSWER = """\
`add` now checks its arguments:

```python
def add(a: int, b: int) -> int:
    if not isinstance(a, int) or not isinstance(b, int):
        raise TypeError("add takes integers")
    return a + b
```

- **tests**: 12 passed
- run `pytest -q` to check again"""


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    shutil.rmtree(WORKSPACE, ignore_errors=True)
    (WORKSPACE / "src").mkdir(parents=True)
    (WORKSPACE / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    monkeypatch.setattr(Durations, "shown", False)
    monkeypatch.setattr(status_bar, "short_count", lambda count: "1.2k")
    # Whether bubblewrap works is the machine's business, not the layout's.
    monkeypatch.setattr(sandbox, "known_in_force",
                        lambda ctx: sandbox.SandboxState("bubblewrap", "pinned for snapshots"))
    yield WORKSPACE
    shutil.rmtree(WORKSPACE.parent, ignore_errors=True)


async def ready(pilot) -> None:
    await pilot.pause()
    pilot.app.prompt.cursor_blink = False


def test_main_layout_after_a_turn(snap_compare, workspace):
    """120x40: prompt, a tool call, a streamed Markdown answer with a code block, the
    timeline column and the status bar with the session's tokens."""
    script = [tool_calls(tool_call("read_file", {"path": "src/calc.py"}, id="call_read"),
                         content="Let me read the function first."),
              text(ANSWER, chunk_size=7)]
    with FakeLLM(script) as llm:
        app = make_app(llm, workspace)

        async def run_before(pilot) -> None:
            await ready(pilot)
            await submit(pilot, "make add check its arguments")
            await wait_turns_ended(pilot, app.session)

        assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_timeline_with_mixed_states(snap_compare, workspace):
    """Every state a call can end in: ok, error, denied by a rule, denied by the user,
    interrupted while running; plus the turn's "interrupted" line."""
    script = [tool_calls(tool_call("read_file", {"path": "src/calc.py"}, id="c1"),
                         tool_call("read_file", {"path": "src/missing.py"}, id="c2"),
                         tool_call("bash", {"command": "rm -rf build"}, id="c3"),
                         tool_call("bash", {"command": "touch notes.txt"}, id="c4")),
              tool_calls(tool_call("bash", {"command": "sleep 30"}, id="c5")),
              hold(text("never sent"))]
    with FakeLLM(script) as llm:
        app = make_app(llm, workspace, deny=["Bash(rm:*)"])

        def modal_for(call_id: str):
            return lambda: (isinstance(app.screen, ApprovalScreen)
                            and app.screen.request.call_id == call_id)

        async def run_before(pilot) -> None:
            await ready(pilot)
            await submit(pilot, "tidy up")
            await wait_for(pilot, modal_for("c4"), what="c4 approval")
            await pilot.press("n")
            await wait_for(pilot, modal_for("c5"), what="c5 approval")
            await pilot.press("y")
            item = app.conversation.tool_item("c5")
            await wait_for(pilot, lambda: item.state == "running", what="sleep running")
            await pilot.press("escape")
            await wait_turns_ended(pilot, app.session)
            await wait_for(pilot, lambda: item.state == "interrupted", what="interrupted")
            app.clear_notifications()

        assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_small_terminal_80x24(snap_compare, workspace):
    """80x24: no timeline column; the calls stay inline; the pane follows the end."""
    script = [tool_calls(tool_call("list_dir", {"path": "."}, id="c1")),
              tool_calls(tool_call("read_file", {"path": "src/calc.py"}, id="c2")),
              text(ANSWER, chunk_size=11)]
    with FakeLLM(script) as llm:
        app = make_app(llm, workspace, mode="plan")

        async def run_before(pilot) -> None:
            await ready(pilot)
            await submit(pilot, "what does calc.py do?")
            await wait_turns_ended(pilot, app.session)

        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
