"""Slash commands, ``!shell`` lines and the command palette: the view's side of them.

Commands act through the Session's public doors (``set_model``, ``set_mode``) or on the
screen only (``/clear``). ``!command`` is the user running their own command in the
workspace, so it needs no approval and never goes through the agent's tools; as in Claude
Code, the agent sees its output with the user's next message (``!!command``: it does not).

``SLASH_COMMANDS`` is the one table of commands: name, usage, help and handler. /help,
the prompt's completion and the dispatch all read it, so a command cannot be listed
without a handler. The app passes itself as the ``CommandHost``: the commands see only
the few doors they use, and this module needs nothing from ``app.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from vibe_tui.core.custom_commands import load_commands
from vibe_tui.policy.types import MODES
from vibe_tui.tools.processes import kill_group

if TYPE_CHECKING:
    from vibe_tui.core.copy_targets import CopyTarget
    from vibe_tui.core.session import Session
    from vibe_tui.widgets.conversation import Conversation

SHELL_OUTPUT_MAX_CHARS = 20_000
SHELL_TIMEOUT_S = 300.0


class CommandHost(Protocol):
    """What the commands use of the app (the app itself is one)."""

    session: Session

    @property
    def conversation(self) -> Conversation: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...

    async def run_action(self, action: str, *args: Any, **kwargs: Any) -> bool: ...

    async def run_command_text(self, text: str) -> None: ...

    async def resume_session(self, path: Path | None) -> None: ...

    def action_changes(self) -> None: ...

    async def copy_text(self, target: CopyTarget) -> None: ...

    def open_settings(self) -> None: ...

    async def action_quit(self) -> None: ...


Handler = Callable[["CommandRunner", str], Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    usage: str
    help: str
    run: Handler  # called with the runner and what follows the name


KEYS_HELP = """\
Keys: Enter send (steers a running turn) · Shift+Enter / Ctrl+J newline · ↑/↓ history
Ctrl+R search the prompts of this workspace's sessions (Enter puts one in the prompt)
Esc interrupt · Ctrl+C interrupt or clear, twice to quit · Shift+Tab cycle mode
PageUp/PageDown scroll the conversation · Ctrl+Home/Ctrl+End its top/end
c on a tool call or its timeline row (Tab to reach them) copies its output
Ctrl+D changes of this session · Ctrl+P command palette · Ctrl+Q quit
@path in a message attaches that file (a big one: its head and outline) for the agent
!command runs your shell command; the agent sees its output with your next message
!!command keeps the output to yourself · !export NAME=value: for the agent's commands too"""


def completions(workspace: Path) -> list[tuple[str, str]]:
    """(name, help) pairs for the prompt's ``/`` completion, the user's own commands too."""
    custom = load_commands(workspace, COMMANDS_BY_NAME.keys()).commands.values()
    return [(command.name, command.help) for command in [*SLASH_COMMANDS, *custom]]


def help_text(workspace: Path) -> str:
    found = load_commands(workspace, COMMANDS_BY_NAME.keys())
    listed = [*SLASH_COMMANDS, *found.commands.values()]
    width = max(len(command.usage) for command in listed)
    lines = [f"{command.usage:<{width}}  {command.help}" for command in listed]
    if found.untrusted:
        lines.append("(this project's commands count once you trust the folder: /trust)")
    lines += [f"skipped: {problem}" for problem in found.problems]
    return "\n".join(lines) + "\n\n" + KEYS_HELP


class CommandRunner:
    """Runs what the user typed when it is a command rather than a message to the model."""

    def __init__(self, host: CommandHost) -> None:
        self.host = host
        self._told_output_shared = False

    @property
    def session(self) -> Session:
        return self.host.session

    @staticmethod
    def handles(text: str) -> bool:
        """``/cmd`` or ``!shell``; ``/src/main.py fails`` is a message about a path."""
        first_word = text.split(maxsplit=1)[0] if text.strip() else ""
        return text.startswith("!") or (first_word.startswith("/") and first_word.count("/") == 1)

    async def run(self, text: str) -> None:
        if text.startswith("!"):
            private = text.startswith("!!")
            self.host.run_worker(self.run_shell(text[2 if private else 1:].strip(),
                                                share=not private), group="user-shell")
            return
        name, _, argument = text.partition(" ")
        command = COMMANDS_BY_NAME.get(name)
        if command is not None:
            await command.run(self, argument.strip())
            return
        found = load_commands(self.session.workspace, COMMANDS_BY_NAME.keys())
        custom = found.commands.get(name)
        if custom is not None:
            if custom.granted:
                self.say(custom.granted)
            self.session.send(custom.prompt(argument), custom.options)
        elif found.untrusted:
            self.say(f"unknown command {name}: this project's own commands count once you "
                     "trust the folder (/trust)")
        else:
            self.say(f"unknown command {name}: /help lists the commands")

    def say(self, text: str) -> None:
        self.host.conversation.add_entry(text, "-notice")

    # ---- !command -----------------------------------------------------------------------

    async def run_shell(self, command: str, share: bool = True) -> None:
        """Run the user's command and show its output; with ``share``, the session holds
        the output for the agent to read with the next message."""
        if not command:
            self.say("! runs a shell command: !ls -la (!!ls -la: the agent does not see it)")
            return
        from vibe_tui.tools.environment import apply_export, is_export, user_env

        conversation = self.host.conversation
        conversation.add_entry(f"$ {command}", "-user")
        ctx = self.host.session.tool_context
        if is_export(command):  # changes the environment of the agent's later commands
            conversation.add_entry(await apply_export(ctx, command), "-shell")
            return
        # Recorded like the agent's commands: /diff and /rewind show what it changed.
        output, code = await self.session.recorded(
            partial(run_user_command, command, ctx.cwd, user_env(ctx)))
        status = "" if code == 0 else f"\n[exit {code}]"
        conversation.add_entry((output.rstrip("\n") or "(no output)") + status, "-shell")
        if share:
            self.session.attachments.shell_ran(command, output, code)
            if not self._told_output_shared:  # once: /help says it for good
                self._told_output_shared = True
                self.say("↳ the agent sees this output with your next message "
                         "(!!command keeps it to yourself)")


# ---- the commands -------------------------------------------------------------------------


async def show_help(runner: CommandRunner, _: str) -> None:
    runner.say(help_text(runner.session.workspace))


async def clear_view(runner: CommandRunner, _: str) -> None:
    await runner.host.conversation.clear_view()


async def use_model(runner: CommandRunner, name: str) -> None:
    session = runner.session
    if not name:
        runner.say(f"model: {session.model or 'none'} · /model NAME to change it")
        return
    from vibe_tui.config.providers import remember_model

    session.set_model(name)
    remember_model(name)
    runner.say(f"model: {name} (from the next model call)")


async def set_mode(runner: CommandRunner, name: str) -> None:
    if name not in MODES:
        runner.say(f"mode: {runner.session.mode} · choose one of {', '.join(MODES)}")
        return
    runner.session.set_mode(name)  # type: ignore[arg-type]
    runner.say(f"mode: {name}")


async def compact(runner: CommandRunner, focus: str) -> None:
    session = runner.session
    if session.running:
        await session.compact(focus or None)
        runner.say("compacting before the agent's next step")
        return
    runner.say("compacting the conversation…")
    runner.host.run_worker(session.compact(focus or None), group="compact",
                           exit_on_error=False)


async def pick_session(runner: CommandRunner, _: str) -> None:
    from vibe_tui.screens.session_picker import SessionPicker

    session = runner.session
    runner.host.push_screen(SessionPicker(session.workspace, current=session.id),
                            callback=runner.host.resume_session)


async def show_changes(runner: CommandRunner, _: str) -> None:
    runner.host.action_changes()


async def rewind(runner: CommandRunner, argument: str) -> None:
    session = runner.session
    if not argument:
        runner.say(rewind_listing(session))
        return
    if not argument.isdigit():
        runner.say("/rewind TURN: a turn number from /rewind's list")
        return
    turn = int(argument)
    try:
        steps = await session.rewind_plan(turn)
    except ValueError as exc:
        runner.say(f"nothing rewound: {exc}")
        return
    if not steps:
        runner.say(_nothing_to_rewind(turn))
        return
    from textual.content import Content

    from vibe_tui.safe_text import safe_name
    from vibe_tui.screens.changes import ConfirmScreen

    plan = [f"\n  {safe_name(step.describe())}" for step in steps]
    question = Content.assemble(("Rewind to before turn ", "bold"), (str(turn), "bold"), "?",
                                *plan)
    runner.host.push_screen(ConfirmScreen(question), callback=partial(_rewind_answered,
                                                                      runner, turn))


async def _rewind_answered(runner: CommandRunner, turn: int, confirmed: bool | None) -> None:
    if not confirmed:
        runner.say("nothing rewound: every file stays as it is")
        return
    try:
        lines = await runner.session.rewind(turn)
    except ValueError as exc:
        runner.say(f"nothing rewound: {exc}")
        return
    if not lines:
        runner.say(_nothing_to_rewind(turn))


def _nothing_to_rewind(turn: int) -> str:
    return (f"nothing to rewind: the files changed in turn {turn} and later are already as "
            f"they were before turn {turn}")


async def copy_to_clipboard(runner: CommandRunner, request: str) -> None:
    from vibe_tui.core.copy_targets import choose

    words = request.split()
    view = words[-1:] == ["view"]  # shown alone to select by hand, not copied
    try:
        target = choose(runner.session.event_log, " ".join(words[:-1] if view else words))
    except LookupError as exc:
        runner.say(str(exc))
        return
    if view:
        from vibe_tui.screens.copy_view import CopyView

        runner.host.push_screen(CopyView(target.text, target.what))
    else:
        await runner.host.copy_text(target)


async def write_agents_md(runner: CommandRunner, _: str) -> None:
    """The agent writes AGENTS.md; the session reads it from the next request on."""
    from vibe_tui.core.prompts import INIT_PROMPT

    if runner.session.mode == "plan":  # the write would be refused after all the reading
        runner.say("/init has the agent write AGENTS.md, which plan mode does not allow: "
                   "switch mode first (Shift+Tab or /mode default)")
        return
    await runner.host.run_command_text(INIT_PROMPT)


async def show_memory(runner: CommandRunner, _: str) -> None:
    runner.say(runner.session.memory_report())


async def show_logs(runner: CommandRunner, _: str) -> None:
    session = runner.session
    events = session.store_path or "not saved (this session is not persisted)"
    calls = session.call_log_path or "not saved"
    runner.say(f"events: {events}\nmodel and tool calls: {calls}")


async def describe_sandbox(runner: CommandRunner, _: str) -> None:
    from vibe_tui.core.run_environment import probe_sandbox, sandbox_details

    state = await probe_sandbox(runner.session)
    lines = [f"sandbox: {state.detail}"]
    if state.kind == "bubblewrap":
        lines += await sandbox_details(runner.session)
    runner.say("\n".join(lines))


async def open_settings(runner: CommandRunner, _: str) -> None:
    runner.host.open_settings()


async def show_mcp(runner: CommandRunner, _: str) -> None:
    from vibe_tui.screens.mcp import McpScreen

    runner.host.push_screen(McpScreen(runner.session.mcp))


async def trust_folder(runner: CommandRunner, _: str) -> None:
    from vibe_tui.config.trusted_folders import (
        describe_project_settings,
        is_trusted,
        load_project_config,
        load_project_hooks,
        trust,
    )

    session = runner.session
    shown = describe_project_settings(session.workspace)
    if not shown:
        runner.say("no .vibe/config.toml, .mcp.json or project commands here: nothing to trust")
        return
    if is_trusted(session.workspace):
        runner.say("this folder is already trusted as it is now")
        return
    trust(session.workspace)
    try:
        rules, _ = load_project_config(session.workspace)
        hooks = load_project_hooks(session.workspace)
    except ValueError as exc:
        runner.say(f"trusted, but its rules or hooks do not parse: {exc}")
        return
    session.configure(hooks=[*session.config.hooks, *hooks],
                      **{kind: [*getattr(session.config, kind), *found]
                         for kind, found in rules.items()})
    runner.say("\n".join(shown) + "\ntrusted: its rules, hooks and commands apply from now "
               "on, its MCP servers from the next session")


async def quit_app(runner: CommandRunner, _: str) -> None:
    await runner.host.action_quit()


SLASH_COMMANDS = [
    SlashCommand("/help", "/help", "commands and keys", show_help),
    SlashCommand("/clear", "/clear", "clear the screen (the session keeps its history)",
                 clear_view),
    SlashCommand("/model", "/model NAME", "use another model from the next call", use_model),
    SlashCommand("/mode", "/mode " + "|".join(MODES), "set the permission mode", set_mode),
    SlashCommand("/compact", "/compact [FOCUS]", "summarise the conversation to free context",
                 compact),
    SlashCommand("/resume", "/resume", "open an earlier session of this workspace",
                 pick_session),
    SlashCommand("/diff", "/diff", "files changed this session; revert a hunk (r) or a file (R)",
                 show_changes),
    SlashCommand("/rewind", "/rewind [TURN]",
                 "list turns that changed files; restore them (asks y/n)", rewind),
    SlashCommand("/copy", "/copy [code [N]|N|tool] [view]",
                 "copy the last answer, a code block of it or the last tool output; view: "
                 "show it alone to select by hand",
                 copy_to_clipboard),
    SlashCommand("/init", "/init", "have the agent write an AGENTS.md for this repository",
                 write_agents_md),
    SlashCommand("/memory", "/memory", "which AGENTS.md files the agent reads", show_memory),
    SlashCommand("/log", "/log", "where this session's event and call logs are", show_logs),
    SlashCommand("/sandbox", "/sandbox", "what commands run under, and why", describe_sandbox),
    SlashCommand("/mcp", "/mcp", "MCP servers: state, tools, errors; space turns one off/on",
                 show_mcp),
    SlashCommand("/trust", "/trust", "use this folder's .vibe/config.toml rules and .mcp.json",
                 trust_folder),
    SlashCommand("/settings", "/settings", "providers, keys and models", open_settings),
    SlashCommand("/quit", "/quit", "quit vibe-tui", quit_app),
]
COMMANDS_BY_NAME = {command.name: command for command in SLASH_COMMANDS}


def rewind_listing(session) -> str:
    """The turns whose file changes /rewind can undo, with their prompts."""
    from vibe_tui.core import events as ev

    turns = session.checkpoints.turns()
    if not turns:
        return "no turn has changed a file yet"
    prompts = {e.turn_id: e.prompt for e in session.event_log if isinstance(e, ev.TurnStarted)}
    lines = ["/rewind N puts every file changed in turn N and later back as it was before "
             "(it shows what it will do and asks first):"]
    for turn, files in turns.items():
        prompt = " ".join(prompts.get(turn, "").split())[:60]
        if turn == 0:  # a !command run before any turn
            prompt = "your ! commands before the first turn"
        lines.append(f"  turn {turn} › {prompt}: {', '.join(files)}")
    return "\n".join(lines)


async def run_user_command(command: str, cwd, env: dict[str, str] | None = None
                           ) -> tuple[str, int | None]:
    """Run the user's command; the first SHELL_OUTPUT_MAX_CHARS of its output and its code.
    Its own process group, so a timeout or quitting the app stops all of it. ``env``: the
    session's (its venv and exports), so the user sees what the agent's commands see."""
    process = await asyncio.create_subprocess_shell(
        command, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    try:
        output = await asyncio.wait_for(read_capped(process), SHELL_TIMEOUT_S)
    except asyncio.TimeoutError:
        kill_group(process.pid)
        await process.wait()
        return f"(stopped after {SHELL_TIMEOUT_S:.0f} s)", process.returncode
    except asyncio.CancelledError:
        kill_group(process.pid)
        raise
    return output, await process.wait()


async def read_capped(process: asyncio.subprocess.Process) -> str:
    kept: list[bytes] = []
    size = dropped = 0
    while chunk := await process.stdout.read(65536):
        room = SHELL_OUTPUT_MAX_CHARS - size
        kept.append(chunk[:room])
        size += min(len(chunk), max(room, 0))
        dropped += max(0, len(chunk) - max(room, 0))
    text = b"".join(kept).decode("utf-8", "replace")
    return text + (f"\n… {dropped} more bytes not shown" if dropped else "")


class VibeCommands(Provider):
    """The command palette (Ctrl+P) offers the same actions as the slash commands."""

    def _entries(self) -> list[tuple[str, str, object]]:
        app = cast(CommandHost, self.app)
        slash = app.run_command_text
        return [
            ("Interrupt the turn", "stop what the agent is doing (Esc)",
             partial(app.run_action, "interrupt")),
            ("Cycle mode", "default → accept-edits → plan → yolo (Shift+Tab)",
             partial(app.run_action, "cycle_mode")),
            *((f"Mode: {mode}", f"/mode {mode}", partial(slash, f"/mode {mode}"))
              for mode in MODES),
            ("Clear the conversation", "/clear: the session keeps its history",
             partial(slash, "/clear")),
            ("Compact the conversation", "/compact: summarise older turns to free context",
             partial(slash, "/compact")),
            ("Resume a session", "/resume: open an earlier session of this workspace",
             partial(slash, "/resume")),
            ("Changes of this session", "/diff: every changed file; revert (Ctrl+D)",
             partial(slash, "/diff")),
            ("Write AGENTS.md", "/init: the agent describes this repository for agents",
             partial(slash, "/init")),
            ("Sandbox", "/sandbox: what commands run under", partial(slash, "/sandbox")),
            ("Settings", "/settings: providers, keys and models", partial(slash, "/settings")),
            ("MCP servers", "/mcp: state, tools and errors", partial(slash, "/mcp")),
            ("Help", "/help: commands and keys", partial(slash, "/help")),
            ("Quit", "/quit", partial(slash, "/quit")),
        ]

    async def discover(self) -> Hits:
        for title, help_line, callback in self._entries():
            yield DiscoveryHit(title, callback, help=help_line)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_line, callback in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_line)
