"""Slash commands, !shell lines, completion and the command palette."""

from __future__ import annotations

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    entries,
    events_of,
    litellm_loaded,
    make_app,
    no_key_grace,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.core import events as ev
from vibe_tui.testing.script import text
from vibe_tui.widgets.prompt_input import CompletionList


def completions(app) -> list[str]:
    return [c.value for c in app.query_one(CompletionList).completions]


async def test_mode_and_model_commands_change_the_session(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/mode plan")
        assert app.session.mode == "plan"
        await submit(pilot, "/mode nonsense")
        assert app.session.mode == "plan"
        await submit(pilot, "/model openai/other-model")
        assert app.session.model == "openai/other-model"
        await wait_for(pilot, lambda: app.status_bar.model == "openai/other-model"
                       and app.status_bar.mode == "plan", what="status bar")
        notices = entries(app, ".-notice")
        assert notices[0] == "mode: plan"
        assert notices[1].startswith("mode: plan · choose one of default, accept-edits")
        assert notices[2] == "model: openai/other-model (from the next model call)"
        assert [e.model for e in events_of(app.session, ev.ModelChanged)] == ["openai/other-model"]
        assert fake_llm.requests == []  # commands never reach the model


async def test_help_unknown_and_settings(fake_llm, tmp_path):
    from vibe_tui.screens.settings import SettingsScreen

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/help")
        await submit(pilot, "/frobnicate")
        help_text, unknown = entries(app, ".-notice")
        assert "/model NAME" in help_text and "Shift+Tab" in help_text
        assert unknown == "unknown command /frobnicate: /help lists the commands"
        await submit(pilot, "/settings")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen), what="settings")
        assert fake_llm.requests == []


async def test_a_path_is_a_message_not_a_command(fake_llm, tmp_path):
    fake_llm.push(text("looked"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/src/main.py fails")
        await wait_turns_ended(pilot, app.session)
        assert fake_llm.requests[0]["messages"][-1]["content"] == "/src/main.py fails"


async def test_clear_empties_the_view_only(fake_llm, tmp_path):
    fake_llm.push(text("an answer"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/clear")
        await wait_for(pilot, lambda: len(app.conversation.children) == 0, what="empty view")
        assert len(app.session.messages) == 2  # the model still remembers


async def test_bang_runs_the_users_own_command(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "!echo hi && pwd && exit 3")
        await wait_for(pilot, lambda: entries(app, ".-shell"), what="shell output")
        assert "$ echo hi && pwd && exit 3" in entries(app, ".-user")
        assert entries(app, ".-shell") == [f"hi\n{tmp_path.resolve()}\n[exit 3]"]
        assert fake_llm.requests == [] and not events_of(app.session, ev.ToolCall)


async def test_bang_output_goes_to_the_agent_with_the_next_message(fake_llm, tmp_path):
    from vibe_tui.commands import help_text

    fake_llm.push(text("The test fails on add."), text("ok"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "!echo SHARED_OUTPUT; exit 4")
        await wait_for(pilot, lambda: entries(app, ".-shell"), what="shell output")
        await wait_for(pilot, lambda: any("next message" in e for e in entries(app, ".-notice")),
                       what="the hint that the agent sees it")
        await submit(pilot, "!!echo PRIVATE_OUTPUT")
        await wait_for(pilot, lambda: len(entries(app, ".-shell")) == 2, what="private output")
        assert fake_llm.requests == []  # nothing is sent until the user writes
        await submit(pilot, "why does it fail?")
        await wait_turns_ended(pilot, app.session)
        sent = fake_llm.requests[0]["messages"][-1]["content"]
        assert "$ echo SHARED_OUTPUT; exit 4" in sent and "SHARED_OUTPUT\n" in sent
        assert "exit code 4" in sent and sent.endswith("why does it fail?")
        assert "PRIVATE_OUTPUT" not in sent
        await wait_for(pilot, lambda: any(e.startswith("attached") and "$ echo SHARED" in e
                                          for e in entries(app, ".-notice")), what="notice")
        await submit(pilot, "and now?")  # sent once, with the message that followed it
        await wait_turns_ended(pilot, app.session, 2)
        assert "SHARED_OUTPUT" not in fake_llm.requests[1]["messages"][-1]["content"]
        assert "!!command" in help_text(tmp_path)


async def test_slash_and_at_completion(fake_llm, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "README.md").write_text("")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("/", "m", "o")
        await wait_for(pilot, lambda: completions(app) == ["/model ", "/mode "], what="/mo")
        await pilot.press("down", "tab")
        assert app.prompt.text == "/mode "
        assert not app.query_one(CompletionList).shown
        app.prompt.clear()
        await pilot.press(*"look at @mai")
        await wait_for(pilot, lambda: completions(app) == ["@src/main.py "], what="@mai")
        await pilot.press("enter")  # Enter takes the completion; it does not send
        assert app.prompt.text == "look at @src/main.py "
        assert fake_llm.requests == []
        await pilot.press("escape")
        assert not app.session.running


def first_palette_hit(app) -> str:
    from textual.command import CommandList

    results = app.screen.query(CommandList)
    if not results or results.first().option_count == 0:
        return ""
    return str(results.first().get_option_at_index(0).prompt)


async def test_palette_offers_the_same_actions(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.screen.id == "--command-palette"
                       or type(app.screen).__name__ == "CommandPalette", what="palette")
        await pilot.press(*"mode: yolo")
        await wait_for(pilot, lambda: first_palette_hit(app).startswith("Mode: yolo"),
                       what="palette hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.mode == "yolo", what="yolo mode")


async def test_compact_summarises_by_hand_and_says_so(fake_llm, tmp_path):
    fake_llm.push(text("first answer " * 150), text("second answer " * 150),
                  text("Goal: testing. Files: none. Left to do: nothing."))
    app = make_app(fake_llm, tmp_path, models={fake_llm.model: {"context_window": 4096}})
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first question")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "second question")
        await wait_turns_ended(pilot, app.session, count=2)
        await submit(pilot, "/compact keep the answers")
        await wait_for(pilot, lambda: events_of(app.session, ev.Compacted), what="compaction")
        compacted = events_of(app.session, ev.Compacted)[0]
        assert compacted.reason == "manual"
        summary_request = fake_llm.requests[-1]["messages"]
        assert "keep the answers" in str(summary_request)
        await wait_for(pilot, lambda: any("context compacted by /compact" in e
                                          for e in entries(app, ".-notice")), what="notice")


async def test_memory_log_sandbox_and_init(fake_llm, tmp_path):
    (tmp_path / "AGENTS.md").write_text("Run tests with make check.\n")
    fake_llm.push(text("I wrote AGENTS.md."))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/memory")
        await submit(pilot, "/log")
        await submit(pilot, "/sandbox")
        await wait_for(pilot, lambda: len(entries(app, ".-notice")) >= 3, what="3 notices")
        memory, log, sandbox = entries(app, ".-notice")[:3]
        assert str(tmp_path / "AGENTS.md") in memory
        assert str(app.session.store_path) in log and str(app.session.call_log_path) in log
        assert sandbox.startswith("sandbox: ")
        await submit(pilot, "/init")
        await wait_turns_ended(pilot, app.session)
        assert "Write an AGENTS.md file" in fake_llm.requests[0]["messages"][-1]["content"]


async def test_init_writes_agents_md_and_the_next_request_follows_it(fake_llm, tmp_path):
    from vibe_tui.testing.script import tool_call, tool_calls

    fake_llm.push(
        tool_calls(tool_call("write_file", {"path": "AGENTS.md",
                                            "content": "# Agents\nRun tests with tox -q.\n"})),
        text("I wrote AGENTS.md."), text("ok"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/init")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "AGENTS.md").exists()
        await submit(pilot, "/memory")
        await wait_for(pilot, lambda: any("loaded into the system prompt" in e
                                          for e in entries(app, ".-notice")), what="/memory")
        assert any(str(tmp_path / "AGENTS.md") in e for e in entries(app, ".-notice"))
        await submit(pilot, "thanks")
        await wait_turns_ended(pilot, app.session, 2)
        assert "Run tests with tox -q." not in fake_llm.requests[0]["messages"][0]["content"]
        assert "Run tests with tox -q." in fake_llm.requests[-1]["messages"][0]["content"]


async def test_init_in_plan_mode_says_it_cannot_write(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path, mode="plan")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/init")
        await wait_for(pilot, lambda: entries(app, ".-notice"), what="the refusal")
        assert "plan mode" in entries(app, ".-notice")[0]
        assert fake_llm.requests == [] and not app.session.running


async def test_bang_export_sets_a_variable_for_later_commands(fake_llm, tmp_path):
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "!export GREETING='hello there'")
        await wait_for(pilot, lambda: len(entries(app, ".-shell")) == 1, what="export line")
        assert "GREETING" in entries(app, ".-shell")[0]
        assert app.session.tool_context.env_overrides["GREETING"] == "hello there"
        await submit(pilot, "!echo $GREETING")
        await wait_for(pilot, lambda: len(entries(app, ".-shell")) == 2, what="echo output")
        assert entries(app, ".-shell")[1] == "hello there"


async def test_resume_picks_an_earlier_session_and_redraws_it(fake_llm, tmp_path):
    from vibe_tui.screens.session_picker import SessionPicker

    fake_llm.push(text("EARLIER ANSWER"), text("LATER ANSWER"), text("CONTINUED"))
    first = make_app(fake_llm, tmp_path)
    async with first.run_test(size=SIZE) as pilot:
        await submit(pilot, "the earlier question")
        await wait_turns_ended(pilot, first.session)
        await first.action_quit()
    first_id = first.session.id

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "a later question")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPicker)
                       and app.screen.summaries, what="the picker's list")
        picker = app.screen
        assert [s.id for s in picker.summaries][1] == first_id  # newest first
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.session.id == first_id, what="the swap")
        await wait_for(pilot, lambda: any("the earlier question" in e
                                          for e in entries(app, ".-user")), what="replay")
        assert not any("a later question" in e for e in entries(app, ".-user"))
        await submit(pilot, "go on")
        await wait_turns_ended(pilot, app.session, count=2)
        last_request = fake_llm.requests[-1]["messages"]
        assert "the earlier question" in str(last_request)
        assert "a later question" not in str(last_request)


async def test_diff_and_ctrl_d_open_the_changes_of_the_session(fake_llm, tmp_path):
    from vibe_tui.screens.changes import ChangesScreen
    from vibe_tui.testing.script import tool_call, tool_calls

    (tmp_path / "notes.txt").write_text("one\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"}),
                             tool_call("write_file", {"path": "notes.txt",
                                                      "content": "one\ntwo\n"})),
                  text("added a line"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "add a line")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/diff")
        await wait_for(pilot, lambda: isinstance(app.screen, ChangesScreen)
                       and app.screen.current is not None, what="the changes screen")
        assert app.screen.current.rel == "notes.txt" and app.screen.current.added == 1
        app.screen.action_close()
        await wait_for(pilot, lambda: not isinstance(app.screen, ChangesScreen), what="closed")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChangesScreen), what="ctrl+d")


async def test_an_untrusted_project_config_is_shown_and_trust_applies_its_rules(fake_llm,
                                                                                tmp_path):
    from vibe_tui.app import VibeApp
    from vibe_tui.cli import build_parser, config_from_args, open_session
    from vibe_tui.testing.script import tool_call, tool_calls

    (tmp_path / ".vibe").mkdir()
    (tmp_path / ".vibe" / "config.toml").write_text(
        '[permissions]\nallow = ["Bash(touch:*)"]\n\n'
        '[[hooks.PostToolUse]]\nmatcher = "Bash"\ncommand = "echo hooked > hooked.txt"\n')
    fake_llm.push(tool_calls(tool_call("bash", {"command": "touch made.txt"})), text("made"))
    args = build_parser().parse_args(["-C", str(tmp_path), "--model", fake_llm.model,
                                      "--api-base", fake_llm.base_url])
    app = VibeApp(open_session(args, config_from_args(args), interactive=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any("ignored .vibe/config.toml" in e and "/trust" in e
                                          for e in entries(app, ".-notice")), what="notice")
        assert "Bash(touch:*)" not in app.session.config.allow
        assert app.session.config.hooks == []
        await submit(pilot, "/trust")
        assert "Bash(touch:*)" in app.session.config.allow
        assert "trusted: its rules, hooks and commands apply" in entries(app, ".-notice")[-1]
        await submit(pilot, "make a file")
        await wait_turns_ended(pilot, app.session)
        assert (tmp_path / "made.txt").exists()  # allowed by the project's rule: no question
        assert (tmp_path / "hooked.txt").read_text() == "hooked\n"  # and its hook ran
        assert events_of(app.session, ev.ApprovalRequested) == []
        await submit(pilot, "/trust")
        assert entries(app, ".-notice")[-1] == "this folder is already trusted as it is now"


async def test_mcp_opens_the_servers_screen(fake_llm, tmp_path):
    from vibe_tui.screens.mcp import McpScreen

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/mcp")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), what="the MCP screen")


async def test_rewind_lists_the_turns_and_restores_their_files(fake_llm, tmp_path):
    from vibe_tui.screens.changes import ConfirmScreen
    from vibe_tui.testing.script import tool_call, tool_calls

    (tmp_path / "notes.txt").write_text("original\n")
    fake_llm.push(tool_calls(tool_call("read_file", {"path": "notes.txt"}),
                             tool_call("write_file", {"path": "notes.txt", "content": "new\n"})),
                  text("changed it"))
    app = make_app(fake_llm, tmp_path, mode="accept-edits")
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "rewrite the notes")
        await wait_turns_ended(pilot, app.session)
        await submit(pilot, "/rewind")
        listing = entries(app, ".-notice")[-1]
        assert "turn 1 › rewrite the notes: notes.txt" in listing
        await submit(pilot, "/rewind 1")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="y/n")
        await pilot.press("y")
        await wait_for(pilot, lambda: (tmp_path / "notes.txt").read_text() == "original\n",
                       what="the file restored")
        await wait_for(pilot, lambda: any("rewound to before turn 1" in e
                                          for e in entries(app, ".-notice")), what="notice")


def test_the_command_table_names_each_command_once_with_its_handler_and_help(tmp_path):
    import inspect

    from vibe_tui.commands import COMMANDS_BY_NAME, SLASH_COMMANDS, help_text

    assert len(COMMANDS_BY_NAME) == len(SLASH_COMMANDS)
    shown = help_text(tmp_path)
    for command in SLASH_COMMANDS:
        assert command.name.startswith("/") and command.usage.startswith(command.name)
        assert inspect.iscoroutinefunction(command.run)
        assert command.usage in shown


async def test_a_slash_command_typed_in_one_burst_runs_that_command(fake_llm, tmp_path):
    # A paste or a fast typist: the keys arrive before the completion list has caught up
    # with the text, and Enter must not take a stale completion ("/me" + "/help").
    from textual import events

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for key in ("/", "m", "e", "m"):
            app.prompt.post_message(events.Key(key, key))
        app.prompt.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: any("AGENTS.md" in e or "memory" in e.lower()
                                          for e in entries(app, ".-notice")),
                       what=f"the /memory report; prompt {app.prompt.text!r}, notices {entries(app, '.-notice')}")
        assert "/help" not in app.prompt.text and app.prompt.text == ""
        assert not any(e.startswith("commands") for e in entries(app, ".-notice"))
        # A name typed in full runs that command, even where it starts another's name.
        for key in ("/", "m", "o", "d", "e"):
            app.prompt.post_message(events.Key(key, key))
        app.prompt.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: any(e.startswith("mode: ")
                                          for e in entries(app, ".-notice")), what="/mode")
        assert not any(e.startswith("model: ") for e in entries(app, ".-notice"))
        assert fake_llm.requests == []
