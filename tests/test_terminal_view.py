"""The live terminal of an interactive_start call: drawn in its tool item, typed into by
the user, left with Esc twice. A real Session on the fake model, a real Python REPL in a
real pseudo-terminal."""

from __future__ import annotations

from rich.style import Style
from textual import events

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.testing.script import text, tool_call, tool_calls
from vibe_tui.tools.interactive import close_all
from vibe_tui.widgets.terminal_view import TerminalView, cell_style, key_data

START_PYTHON = tool_calls(tool_call("interactive_start", {"command": "python3 -q"},
                                    id="call_py"))


def drawn_rows(app) -> list[str]:
    """What is drawn inside boxed views (between a row's first two │), stripped."""
    parts = (line.split("│") for line in screen_text(app).splitlines())
    return [part[1].strip() for part in parts if len(part) >= 3]


async def started_terminal(pilot) -> TerminalView:
    """Ask for a REPL; the view once the REPL's prompt is on it."""
    app = pilot.app
    await submit(pilot, "start python")
    await wait_turns_ended(pilot, app.session, timeout=60)
    item = app.conversation.tool_item("call_py")
    await wait_for(pilot, lambda: item.terminal is not None, what="the terminal view")
    view = item.terminal
    await wait_for(pilot, lambda: ">>>" in "\n".join(view.session.lines), timeout=30,
                   what="the REPL prompt")
    return view


async def test_typing_into_the_terminal_reaches_the_program(fake_llm, tmp_path):
    fake_llm.push(START_PYTHON, text("python is running"))
    app = make_app(fake_llm, tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        view = await started_terminal(pilot)
        item = app.conversation.tool_item("call_py")
        assert view.parent is item.parent  # drawn right under its call
        assert app.focused is app.prompt  # nothing took the keys on its own
        await wait_for(pilot, lambda: ">>>" in screen_text(app), what="prompt on screen")

        await pilot.click(view)
        assert app.focused is view
        await pilot.press("1", "+", "1", "enter")
        await wait_for(pilot, lambda: "2" in view.session.lines, timeout=15,
                       what="the answer in the session")
        await wait_for(pilot, lambda: ">>> 1+1" in screen_text(app)
                       and "2" in drawn_rows(app), what="the answer drawn")
        assert app.prompt.text == ""  # the keys went to the program, not the prompt

        # Tab and the arrows are the program's too: Tab completes in Python's REPL.
        await pilot.press("i", "m", "p", "o", "r", "tab")
        await wait_for(pilot, lambda: any(line.startswith(">>> import")
                                          for line in view.session.lines),
                       what="Tab completed by the program")
        await pilot.press("ctrl+u", "up", "enter")  # the history's 1+1, run again
        await wait_for(pilot, lambda: view.session.lines.count("2") == 2,
                       what="the history recalled by the up arrow")
        assert app.focused is view

        # A paste is typed as one piece; readline holds it until Enter.
        view.post_message(events.Paste("6*7"))
        await wait_for(pilot, lambda: ">>> 6*7" in view.session.lines, what="the paste")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "42" in drawn_rows(app), what="the pasted line run")

        # One Esc belongs to the program; the second one leaves the terminal.
        await pilot.press("escape")
        assert app.focused is view and not app.session.running
        await pilot.press("escape")
        assert app.focused is app.prompt
        await pilot.press("x")
        assert app.prompt.text == "x"
        await close_all(app.session.tool_context)


async def test_enter_on_the_call_focuses_the_terminal_and_the_exit_stays(fake_llm, tmp_path):
    fake_llm.push(START_PYTHON, text("python is running"))
    app = make_app(fake_llm, tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        view = await started_terminal(pilot)
        item = app.conversation.tool_item("call_py")
        item.focus()
        await pilot.press("enter")
        assert app.focused is view
        await wait_for(pilot, lambda: "Esc Esc to leave" in screen_text(app),
                       what="how to leave, once focused")
        await pilot.press("ctrl+d")  # end of input: the REPL exits
        await wait_for(pilot, lambda: view.session.state != "running", timeout=15,
                       what="the REPL to exit")
        await wait_for(pilot, lambda: "exited with code 0" in screen_text(app),
                       what="the exit code drawn")
        assert ">>>" in screen_text(app)  # the last screen stays
        assert view.has_class("-ended")
        await wait_for(pilot, lambda: app.focused is app.prompt, what="the keys given back")


async def test_output_is_drawn_as_the_program_prints(fake_llm, tmp_path):
    """A program that keeps printing after its tool call returned: the view follows it
    without anyone calling interactive_send."""
    script = tmp_path / "ticks.py"
    script.write_text("import sys\n"
                      "for n in range(1, 4):\n"
                      "    line = sys.stdin.readline()\n"
                      "    print(f'tick {n}: {line.strip()}', flush=True)\n")
    fake_llm.push(tool_calls(tool_call("interactive_start", {"command": "python3 ticks.py"},
                                       id="call_ticks")), text("started"))
    app = make_app(fake_llm, tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "tick")
        await wait_turns_ended(pilot, app.session, timeout=60)
        item = app.conversation.tool_item("call_ticks")
        await wait_for(pilot, lambda: item.terminal is not None, what="the terminal view")
        view = item.terminal
        await pilot.click(view)
        for n, word in enumerate(("alpha", "beta"), start=1):
            await view.session.type_raw(f"{word}\r".encode())
            await wait_for(pilot, lambda n=n, word=word: f"tick {n}: {word}" in screen_text(app),
                           what=f"tick {n}")
        assert view.session.state == "running"
        await close_all(app.session.tool_context)
        await wait_for(pilot, lambda: "closed: the agent session ended" in screen_text(app),
                       what="the closed session's reason")
        assert "tick 2: beta" in screen_text(app)


async def test_output_is_drawn_once_a_frame(fake_llm, tmp_path):
    """Output comes in pieces of 1 KiB, each one telling the view; the view redraws once
    per frame, however many pieces arrived in it, and ends on the last screen."""
    command = "read go; seq 1 20000; read stop"
    fake_llm.push(tool_calls(tool_call("interactive_start", {"command": command},
                                       id="call_seq")), text("started"))
    app = make_app(fake_llm, tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "count")
        await wait_turns_ended(pilot, app.session, timeout=60)
        item = app.conversation.tool_item("call_seq")
        await wait_for(pilot, lambda: item.terminal is not None, what="the terminal view")
        view = item.terminal
        draws = []
        draw = view._draw
        view._draw = lambda: (draws.append(1), draw())

        for _ in range(100):  # a burst of pieces within one frame
            view._on_session_change(view.session)
        await wait_for(pilot, lambda: draws and view._frame is None, what="the frame")
        await pilot.pause()
        assert len(draws) == 1

        pieces = []
        view.session.add_listener(pieces.append)
        await view.session.type_raw(b"\r")  # ~108 KB of output
        await wait_for(pilot, lambda: "20000" in view.session.lines, timeout=60,
                       what="the last number")
        await wait_for(pilot, lambda: "20000" in drawn_rows(app), what="the last number drawn")
        assert len(pieces) > 50 and len(draws) - 1 <= len(pieces)
        await close_all(app.session.tool_context)


def test_keys_become_the_bytes_a_terminal_sends():
    def sent(key: str, character: str | None = None, app_cursor: bool = False):
        return key_data(events.Key(key, character), app_cursor)

    assert sent("enter", "\r") == b"\r"
    assert sent("tab", "\t") == b"\t"
    assert sent("escape", "\x1b") == b"\x1b"
    assert sent("backspace", "\x7f") == b"\x7f"
    assert sent("ctrl+c") == b"\x03" and sent("ctrl+d") == b"\x04"
    assert sent("up") == b"\x1b[A" and sent("up", app_cursor=True) == b"\x1bOA"
    assert sent("shift+tab") == b"\x1b[Z" and sent("f5") == b"\x1b[15~"
    assert sent("a", "a") == b"a" and sent("eacute", "é") == "é".encode()
    assert sent("ctrl+shift+f13") is None


def test_pyte_colours_become_rich_colours():
    assert cell_style("red", "default", True, False, False, False, False) == \
        Style(color="red", bold=True)
    assert cell_style("brightbrown", "0000ff", False, False, False, False, True) == \
        Style(color="bright_yellow", bgcolor="#0000ff", reverse=True)
    assert cell_style("not-a-colour", "default", False, False, False, False, False) == Style()


async def test_ctrl_c_interrupts_the_program_not_the_app(fake_llm, tmp_path):
    fake_llm.push(START_PYTHON, text("python is running"))
    app = make_app(fake_llm, tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        view = await started_terminal(pilot)
        try:
            await pilot.click(view)
            view.post_message(events.Paste("import time; time.sleep(600)"))
            await pilot.press("enter")
            await wait_for(pilot, lambda: "import time" in "\n".join(view.session.lines),
                           what="the sleep typed")
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: "KeyboardInterrupt" in view.session.lines,
                           timeout=5, what="the program interrupted")
            assert app.focused is view
        finally:
            await close_all(app.session.tool_context)
