"""The conversation pane: streamed answers, safe text, turn endings, replay of a saved session."""

from __future__ import annotations

import asyncio
import io

import pytest
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    OneWidget,
    entries,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    wait_for,
    wait_turns_ended,
)
from engine_helpers import fake_local_start, of_type
from vibe_tui.app import VibeApp
from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.session import Session
from vibe_tui.testing.script import error, hold, text, tool_call, tool_calls
from vibe_tui.widgets.answer import (
    CODE_THEME,
    DRAW_SHARE,
    FLUSH_INTERVAL_S,
    GROW_ROWS,
    MAX_FLUSH_INTERVAL_S,
    AnswerPart,
    AnswerView,
    EscapeCarry,
    flush_interval,
)

ANSWER = "Here is the fix:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\nAll tests pass."


def answers(app) -> list[AnswerView]:
    return list(app.conversation.query(AnswerView))


async def test_streamed_answer_appears_as_markdown(fake_llm, tmp_path):
    fake_llm.push(text(ANSWER, chunk_size=5))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "fix add")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: "All tests pass." in screen_text(app), what="answer on screen")
        shown = screen_text(app)
        assert "› fix add" in shown
        assert "def add(a, b):" in shown and "```" not in shown  # a code block, not raw fences
        assert [m.source for m in answers(app)] == [ANSWER]  # one answer for the whole stream


@pytest.mark.parametrize(("size", "step"), [(SIZE, GROW_ROWS), ((80, 24), 4)],
                         ids=["120x40", "80x24"])
async def test_a_streaming_answer_grows_on_screen_a_few_rows_at_a_time(
        fake_llm, tmp_path, size, step):
    """A row more moves every row of a pane scrolled to its end: the tail keeps blank rows
    below its text while it streams, and gives them up when the answer ends. On a short
    screen it grows by fewer rows, so the blank ones stay few."""
    paragraphs = "\n\n".join(f"Paragraph {n}." for n in range(1, 8))
    fake_llm.push(text(paragraphs, chunk_size=3, delay=0.03))
    app = make_app(fake_llm, tmp_path)
    heights: set[tuple[int, int]] = set()

    def record() -> bool:
        tails = list(app.conversation.query(AnswerPart))
        if tails and tails[-1].growing and tails[-1].size.width:
            console = app.console
            options = console.options.update_width(tails[-1].size.width)
            heights.add((tails[-1].size.height, len(tails[-1].lines_for(console, options))))
        return bool(of_type(app.session, ev.TurnEnded))

    async with app.run_test(size=size) as pilot:
        await submit(pilot, "write paragraphs")
        await wait_for(pilot, record, what="the answer to end")
        tail = list(app.conversation.query(AnswerPart))[-1]
        await wait_for(pilot, lambda: not tail.growing and tail.size.height == 13,
                       what="the blank rows to go")
    assert heights, "the answer was never seen streaming"
    for height, text_rows in heights:
        assert height % step == 0 and height - text_rows < step, heights
    assert any(height > text_rows for height, text_rows in heights), heights  # blank rows


def counting_layouts(app) -> list[tuple]:
    """Each layout of the app's screen from now on, as it happens."""
    layouts: list[tuple] = []
    lay_out = app.screen._refresh_layout
    app.screen._refresh_layout = lambda *args, **kwargs: (
        layouts.append(args), lay_out(*args, **kwargs))
    return layouts


async def test_an_answer_that_grows_is_laid_out_once_and_followed(fake_llm, tmp_path):
    """Textual's layout sets each widget's size, and a size that changed asked for
    another layout of the whole screen: every row an answer grew cost two."""
    fake_llm.push(text("\n\n".join(f"Paragraph {n}." for n in range(1, 40))))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write paragraphs")
        await wait_turns_ended(pilot, app.session)
        pane = app.conversation
        await wait_for(pilot, lambda: "Paragraph 39." in screen_text(app)
                       and pane.scroll_y == pane.max_scroll_y > 0, what="the answer's end")
        await pilot.pause(0.2)
        layouts = counting_layouts(app)
        await answers(app)[-1].append("\n\nOne more paragraph.\n\nAnd the last one.")
        await wait_for(pilot, lambda: "And the last one." in screen_text(app)
                       and pane.scroll_y == pane.max_scroll_y, what="the new rows followed")
        await pilot.pause(0.2)  # time for a second layout, were one asked for
    assert len(layouts) == 1, layouts


async def test_a_new_line_in_the_conversation_is_laid_out_once(fake_llm, tmp_path):
    # The same for a widget mounted into the pane: its size went from nothing to its rows.
    fake_llm.push(text("Done."))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_turns_ended(pilot, app.session)
        await pilot.pause(0.2)
        layouts = counting_layouts(app)
        app.session.emit(ev.Notice(text="a notice of two lines\nthe second"))
        await wait_for(pilot, lambda: "the second" in screen_text(app), what="the notice")
        await pilot.pause(0.2)
    assert len(layouts) == 1, layouts


async def test_after_a_resize_the_answer_is_drawn_as_at_that_size(fake_llm, tmp_path):
    # One layout per change (above) must still give every widget its size at once: the
    # answer's rows depend on the width the layout gives them.
    answer = "\n\n".join(f"Paragraph {n}: " + "words that wrap " * 6 for n in range(1, 12))
    fake_llm.push(text(answer), text(answer))
    resized, fresh = make_app(fake_llm, tmp_path), make_app(fake_llm, tmp_path)
    async with resized.run_test(size=SIZE) as pilot:
        await submit(pilot, "write")
        await wait_turns_ended(pilot, resized.session)
        await wait_for(pilot, lambda: "Paragraph 11:" in screen_text(resized), what="answer")
        await pilot.resize_terminal(70, 30)
        await pilot.pause(0.3)
        shown = screen_text(resized)
    async with fresh.run_test(size=(70, 30)) as pilot:
        await submit(pilot, "write")
        await wait_turns_ended(pilot, fresh.session)
        await wait_for(pilot, lambda: "Paragraph 11:" in screen_text(fresh), what="answer")
        await pilot.pause(0.3)
        assert shown.splitlines()[-20:] == screen_text(fresh).splitlines()[-20:]


async def test_each_flush_of_a_streaming_answer_shows_what_the_text_so_far_shows():
    """A flush within the tail's rows repaints without a layout: a later delta can change
    an earlier row (a setext underline makes the line above a heading), and after each
    flush the screen shows what the text so far, drawn at once, shows."""
    chunks = ["Title", "\n=====\n\nnext", "\n\nsome words that", " wrap " * 30,
              "\n\n- a\n- b", "\n\n  more of b"]
    streamed = OneWidget(AnswerView(streaming=True))
    frames: list[str] = []
    async with streamed.run_test(size=(60, 30)) as pilot:
        for chunk in chunks:
            await streamed.view.append(chunk)
            await pilot.pause()
            frames.append(screen_text(streamed))
    for count, frame in enumerate(frames, 1):
        whole = OneWidget(AnswerView("".join(chunks[:count]), streaming=True))
        async with whole.run_test(size=(60, 30)) as pilot:
            await pilot.pause()
            assert frame == screen_text(whole), f"after {count} flushes"
    assert "Title" in frames[-1] and "more of b" in frames[-1]


async def test_a_tail_slow_to_draw_is_flushed_less_often_and_loses_nothing(fake_llm, tmp_path):
    """A long table cannot be cut into parts: the tail that holds it is drawn whole at every
    flush, longer as it grows. Each next flush is set by how long the last one took to
    draw, so drawing takes at most DRAW_SHARE of the screen's time."""
    rows = "".join(f"| `src/module_{n}.py` | {n} | its scaled total and its root |\n"
                   for n in range(300))
    table = f"The files:\n\n| file | step | what |\n|---|---|---|\n{rows}\nDone.\n"
    fake_llm.push(text(table, chunk_size=400, delay=0.02))
    app = make_app(fake_llm, tmp_path)
    asked: list[tuple[float, float]] = []  # (interval asked, the tail's last drawing)
    async with app.run_test(size=SIZE) as pilot:
        set_timer = app.conversation.set_timer

        def timed(delay, callback, *args, **kwargs):
            views = answers(app)
            if views and getattr(callback, "__name__", "") == "flush":
                asked.append((delay, views[-1].tail_drawn_in))
            return set_timer(delay, callback, *args, **kwargs)

        app.conversation.set_timer = timed
        await submit(pilot, "list the files")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: "Done." in screen_text(app), what="the whole table")
        assert [view.source for view in answers(app)] == [table]
    assert all(delay == flush_interval(drawn) for delay, drawn in asked), asked
    assert max(delay for delay, _ in asked) > FLUSH_INTERVAL_S, asked


def test_the_flush_interval_follows_the_tails_drawing_within_bounds():
    assert flush_interval(0.0) == FLUSH_INTERVAL_S
    assert flush_interval(0.02) == 0.02 / DRAW_SHARE
    assert flush_interval(10.0) == MAX_FLUSH_INTERVAL_S


BLOCKS = ["Some words about step {n}.", "## Step {n}", "- keeps step {n} pure\n- tested",
          "1. first of {n}\n2. second", "```python\nx = {n}\n```", "> quoted {n}",
          "| a | b |\n|---|---|\n| {n} | 2 |", "---", "Words again, {n}."]


def test_an_answer_in_parts_is_drawn_as_rich_draws_it_whole():
    """Rich puts a blank line (or two, or none) between two blocks by what they are; a
    part drawn alone had lost that line at its start (a blank line missing every 800
    characters of a long answer)."""
    text = "\n\n".join(block.format(n=n) for n in range(40) for block in BLOCKS) + "\n"
    console = Console(width=80, color_system=None, file=io.StringIO())
    parts = list(AnswerView(text).compose())
    drawn = [line for part in parts for line in part.lines_for(console, console.options)]
    whole = console.render_lines(Markdown(text, code_theme=CODE_THEME), console.options,
                                 pad=False)
    assert len(parts) > 5
    assert [text_of(line) for line in drawn] == [text_of(line) for line in whole]


def text_of(line: list[Segment]) -> str:
    return "".join(segment.text for segment in line).rstrip()


async def test_escape_sequences_are_neutralised_on_screen(fake_llm, tmp_path):
    # An OSC 52 clipboard write cut across two deltas, colour codes, a bidi override; and a
    # tool output that tries the same.
    hostile = "safe \x1b]52;c;SECRETPAYLOAD\x07text \x1b[31mred\x1b[0m \u202eevil"
    (tmp_path / "notes.txt").write_text("line \x1b]8;;http://evil.example\x07link\x1b]8;;\x07\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"})),
                  text(hostile, chunk_size=9))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: "evil" in screen_text(app), what="answer on screen")
        item = app.conversation.query_one("ToolCallItem")
        item.action_toggle()
        await wait_for(pilot, lambda: "link" in screen_text(app), what="expanded output")
        shown = screen_text(app)
        assert "\x1b" not in shown and "\x07" not in shown
        assert "SECRETPAYLOAD" not in shown and "evil.example" not in shown
        assert "safe text red" in shown
        assert "\\u202eevil" in shown  # visible, and inert
        assert answers(app)[0].source == "safe text red \\u202eevil"


def test_escape_carry_holds_a_split_sequence():
    carry = EscapeCarry()
    assert carry.feed("a \x1b]8;;http://x") == "a "
    assert carry.feed(".y\x07b") == "b"
    assert carry.feed("c \x1b[3") == "c "
    assert carry.feed("1mred") == "red"
    assert carry.feed("end \x1b") == "end "
    assert carry.flush() == ""


async def test_errors_and_turn_endings_are_shown(fake_llm, tmp_path):
    fake_llm.push(error(503), error(401))
    app = make_app(fake_llm, tmp_path, model_retries=2)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: entries(app, ".-failed"), what="failure line")
        assert any("retrying" in e for e in entries(app, ".-retrying"))
        assert entries(app, ".-failed")[0].startswith("✗ failed: authentication failed")


async def test_resumed_session_is_drawn_from_its_record(fake_llm, tmp_path):
    fake_llm.push(text("first answer, streamed"), tool_calls(tool_call("list_dir", {"path": "."})),
                  text("second answer"))
    config = Config(model=fake_llm.model, api_base=fake_llm.base_url)
    first = VibeApp(Session(config, workspace=tmp_path))
    async with first.run_test(size=SIZE) as pilot:
        await submit(pilot, "one")
        await wait_turns_ended(pilot, first.session)
        await submit(pilot, "two")
        await wait_turns_ended(pilot, first.session, 2)
    path = first.session.store_path
    resumed = VibeApp(Session.resume(config, tmp_path, path))
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(answers(resumed)) == 2, what="replayed answers")
        assert [m.source for m in answers(resumed)] == ["first answer, streamed", "second answer"]
        assert entries(resumed, ".-user") == ["› one", "› two"]
        item = resumed.conversation.query_one("ToolCallItem")
        assert item.state == "ok"


def unconfigured_app(llm, workspace, **start) -> tuple[VibeApp, Session]:
    """No model configured: the session boots the local model (a fake start here)."""
    session = Session(Config(model_retry_base_s=0.01), workspace=workspace)
    session.model_runtime.start_server = fake_local_start(llm, **start)
    return VibeApp(session), session


async def test_the_local_model_starts_with_progress_and_a_message_sent_early_waits(
        fake_llm, tmp_path):
    fake_llm.push(text("Four."))
    ready = asyncio.Event()
    app, session = unconfigured_app(fake_llm, tmp_path, ready=ready)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.status_bar.model == "local model: loading",
                       what="the start's progress in the status bar")
        assert any("starting the embedded local model" in e for e in entries(app, ".-notice"))
        await submit(pilot, "what is 2+2?")
        await wait_for(pilot, lambda: any("then sent: what is 2+2?" in e
                                          for e in entries(app, ".-notice")), what="held")
        assert not session.running
        ready.set()
        await wait_turns_ended(pilot, session)
        assert app.status_bar.model == session.model and session.model.startswith("openai/")
        assert any("what is 2+2?" in e for e in entries(app, ".-user"))
        await app.action_quit()
    assert not session.model_runtime.start_server.servers[0].running


async def test_a_local_model_that_fails_to_start_says_what_was_not_sent(fake_llm, tmp_path):
    ready = asyncio.Event()
    app, session = unconfigured_app(fake_llm, tmp_path, ready=ready, error="no disk space")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: session.model_runtime.starting, what="the start")
        await submit(pilot, "fix the bug")
        await submit(pilot, "and add a test")
        ready.set()
        await wait_for(pilot, lambda: entries(app, ".-error"), what="the failure")
        assert entries(app, ".-error") == ["The local model could not start: no disk space"]
        assert "not sent, for want of a model (↑ brings it back): fix the bug and 1 more" in (
            entries(app, ".-notice"))
        assert app.status_bar.model == "" and "no model" in screen_text(app)


async def test_the_status_bar_says_the_local_model_is_reading_the_prompt(fake_llm, tmp_path):
    fake_llm.push(hold(text('{"action": "answer", "text": "hi"}')))
    app = make_app(fake_llm, tmp_path, local_model=True)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: app.session.running, what="the turn")
        app.status_bar.show_event(ev.PromptProgress(done=40, total=1000))
        await pilot.pause()
        assert "● reading the prompt: 4% of 1,000 tokens" in screen_text(app)
        fake_llm.release()
        await wait_turns_ended(pilot, app.session)
        assert "reading the prompt" not in screen_text(app)
