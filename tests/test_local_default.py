"""With no model configured, the app and headless mode start the embedded local model
and use it: the real 0.5B weights from the model cache (skipped, saying why, when absent),
served by llama.cpp on 127.0.0.1. No key, no network."""

from __future__ import annotations

import io

import pytest

from app_helpers import entries, submit, wait_for
from engine_helpers import of_type
from vibe_tui.app import VibeApp
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.local.catalogue import LIGHT_LOCAL_MODEL, model_dir
from vibe_tui.local.weights import cached_weights
from vibe_tui.core.session import Session
from vibe_tui.cli.headless import run_headless
from vibe_tui.tools.file_read import ReadFileTool

pytestmark = pytest.mark.timeout(600)
# What is tested is the boot, not the tools: one tool keeps the prompt short, and a CPU
# reads the whole default tool list for about a minute before the first token.
ONE_TOOL = [ReadFileTool()]


@pytest.fixture(autouse=True)
def light_local_model(monkeypatch: pytest.MonkeyPatch) -> None:
    if cached_weights(LIGHT_LOCAL_MODEL) is None:
        pytest.skip(f"the {LIGHT_LOCAL_MODEL} weights are not in the model cache ({model_dir()}): "
                    f"run `uv run python -m vibe_tui.cli.local_model fetch {LIGHT_LOCAL_MODEL}`")
    monkeypatch.setenv("VIBE_TUI_LOCAL_MODEL", LIGHT_LOCAL_MODEL)
    # One thread: on a shared 2-core machine a second one makes llama.cpp several times slower.
    monkeypatch.setenv("VIBE_TUI_LOCAL_THREADS", "1")


def is_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


async def test_the_app_starts_the_local_model_and_a_message_sent_early_waits_for_it(tmp_path):
    session = Session(Config(max_steps=2, model_timeout_s=240), tmp_path, tools=ONE_TOOL)
    app = VibeApp(session)
    async with app.run_test(size=(120, 40)) as pilot:
        # Typed before the model is ready: held, then sent once it is.
        await submit(pilot, "Reply with one short sentence: what is 2+2?")
        await wait_for(pilot, lambda: session.model.startswith("openai/"), timeout=300,
                       what="the local model to be ready")
        assert LIGHT_LOCAL_MODEL in app.status_bar.model
        server_pid = session.model_runtime.server.pid
        await wait_for(pilot, lambda: of_type(session, ev.TurnEnded), timeout=400,
                       what="the turn on the local model to end")
        ended = of_type(session, ev.TurnEnded)[0]
        assert ended.state == "completed", ended.message
        assert of_type(session, ev.UserMessage)[0].text.startswith("Reply with one")
        assert of_type(session, ev.AssistantMessage)[-1].text.strip()
        await app.action_quit()
    assert is_gone(server_pid)


async def test_headless_mode_uses_the_local_model_when_nothing_is_configured(tmp_path):
    from vibe_tui.cli.headless import start_model
    from vibe_tui.core.model_runtime import needs_local_model

    session = Session(Config(max_steps=2, model_timeout_s=240), tmp_path, interactive=False,
                      tools=ONE_TOOL)
    assert needs_local_model(session.model, session.config)
    progress = io.StringIO()
    try:
        assert await start_model(session, progress) is None
        assert "starting the local model" in progress.getvalue()
        assert "start" in [p.phase for p in of_type(session, ev.ModelProgress)]
        server = session.model_runtime.server
        assert session.config.api_key == server.api_key and session.config.local_model
        out, err = io.StringIO(), io.StringIO()
        code = await run_headless(session, "Reply with the single word: hello", out=out, err=err)
    finally:
        await session.close()  # the session stops the server it started
    assert code == 0, err.getvalue()
    assert out.getvalue().strip()
    assert not server.running


async def test_a_first_run_shows_the_start_and_answers_what_files_are_here(tmp_path):
    """The keyless first run as a new user meets it: the model's start in the status bar,
    the steps' note, then an answer naming the repository's files."""
    (tmp_path / "app.py").write_text("PORT = 8080\n")
    (tmp_path / "README.md").write_text("# Demo\n")
    session = Session(Config(model_timeout_s=240), tmp_path)
    app = VibeApp(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.model == "local model: loading",
                       timeout=60, what="the start in the status bar")
        await wait_for(pilot, lambda: session.model.startswith("openai/"), timeout=300,
                       what="the local model to be ready")
        await submit(pilot, "What files are in this repository?")
        # A question needs no change: a user says no to any the model asks for (a small
        # model sometimes runs a command that asks), and the turn goes on to its answer.
        try:
            await wait_for(pilot, lambda: deny_asked(session) or of_type(session, ev.TurnEnded),
                           timeout=400, what="the answer")
        except AssertionError as timed_out:
            raise AssertionError(f"{timed_out}; the turn so far:\n{story(session)}") from None
        assert of_type(session, ev.TurnEnded)[0].state == "completed", story(session)
        assert any("small-model steps: gathered the file list (2 files)" in text
                   for text in entries(app, ".-notice"))
        answer = of_type(session, ev.AssistantMessage)[-1].text
        assert "app.py" in answer or "README.md" in answer, story(session)
        await app.action_quit()


def deny_asked(session: Session) -> bool:
    for pending in session.pending_approvals():
        session.answer(pending.approval_id, "deny")
    return False


def story(session: Session) -> str:
    """The turn's steps in a line each, for a failure message: the 0.5B model's path
    varies from run to run."""
    shown = (ev.ToolCall, ev.ToolResult, ev.AssistantMessage, ev.ApprovalRequested,
             ev.TurnEnded, ev.Notice)
    return "\n".join(str(event.to_json())[:200] for event in session.event_log
                     if isinstance(event, shown))
