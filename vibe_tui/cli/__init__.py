"""Command line: ``vibe-tui`` opens the app; ``vibe-tui -p TASK`` runs one turn headless."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vibe_tui import __version__
from vibe_tui.config.settings import Config, load_config
from vibe_tui.policy.types import MODES

if TYPE_CHECKING:
    from vibe_tui.core.session import Session

DEFAULT_WEB_PORT = 8765  # vibe_tui.web.server.DEFAULT_PORT, without importing starlette
# Before the local model's error: it was only the fallback.
NO_MODEL_FAILURE = "no model configured and the local model failed: "
# The most frames a second the screen is painted (see set_screen_rate).
SCREEN_FPS = 240


def build_parser() -> argparse.ArgumentParser:
    commands = "\n".join(f"  vibe-tui {name:<9} {text}" for name, (_, text) in SUBCOMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="vibe-tui", description="A terminal coding agent for any model provider.",
        epilog=f"commands:\n{commands}", formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-p", "--print", dest="task", metavar="TASK",
                        help="run TASK in the current directory without the screen, print the answer")
    parser.add_argument("--model", help="LiteLLM model string, e.g. openai/gpt-4.1")
    parser.add_argument("--api-base", help="base URL of the provider or OpenAI-compatible server")
    parser.add_argument("--api-key", help="API key (default: the provider's usual env variable)")
    parser.add_argument("--mode", choices=MODES, help="permission mode (default: default)")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE",
                        help="permission rule that runs without asking, e.g. 'Bash(npm test:*)'")
    parser.add_argument("--deny", action="append", default=[], metavar="RULE",
                        help="permission rule that is always refused")
    parser.add_argument("--max-steps", type=int, help="model calls per turn (default 30)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run commands on the host with your rights, without bubblewrap")
    parser.add_argument("--output-format", choices=("text", "jsonl"), default="text",
                        help="headless output: the answer as text, or one JSON event per line")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("-c", "--continue", dest="continue_last", action="store_true",
                        help="resume the last session of this workspace")
    resume.add_argument("-r", "--resume", metavar="ID", help="resume the session with this id")
    parser.add_argument("--web", action="store_true",
                        help="also open the session in a browser tab (link in the status bar)")
    parser.add_argument("--port", type=int, default=DEFAULT_WEB_PORT,
                        help=f"web view port (default {DEFAULT_WEB_PORT}, the next free one "
                             "if taken)")
    parser.add_argument("-C", "--cwd", type=Path, default=None,
                        help="workspace folder (default: the current directory)")
    parser.add_argument("--version", action="version", version=f"vibe-tui {__version__}")
    return parser


def config_from_args(args: argparse.Namespace) -> Config:
    from vibe_tui.config.credentials import use_stored_keys
    from vibe_tui.config.providers import key_envs

    config = use_stored_keys(load_config(), key_envs())  # keys typed in /settings
    config = config.with_overrides(
        model=args.model, api_base=args.api_base, api_key=args.api_key, mode=args.mode,
        max_steps=args.max_steps,
        sandbox="off" if args.no_sandbox else None,
        allow=[*config.allow, *args.allow] if args.allow else None,
        deny=[*config.deny, *args.deny] if args.deny else None,
    )
    config.check_rules()
    return config


def open_session(args: argparse.Namespace, config: Config, *, interactive: bool):
    from vibe_tui.config.trusted_folders import apply_project_config
    from vibe_tui.core import events as ev
    from vibe_tui.core.session import Session
    from vibe_tui.core.store import find_session

    workspace = (args.cwd or Path.cwd()).resolve()
    config, ignored = apply_project_config(config, workspace)
    if args.continue_last or args.resume:
        path = find_session(workspace, None if args.continue_last else args.resume)
        session = Session.resume(config, workspace, path, interactive=interactive)
    else:
        session = Session(config, workspace, interactive=interactive)
    if ignored:
        how = "/trust" if interactive else "vibe-tui trust"
        session.emit(ev.Notice(text=f"{ignored} ({how})"))
    return session


# Subcommands, each a module with ``main(argv) -> int``; imported only when used.
SUBCOMMANDS = {
    "policy": ("vibe_tui.cli.policy_check", "check rules: vibe-tui policy check < calls.jsonl"),
    "sessions": ("vibe_tui.cli.sessions", "list this workspace's sessions"),
    "serve": ("vibe_tui.cli.serve", "run a session with the web view only"),
    "trust": ("vibe_tui.cli.trust", "use this folder's .vibe/config.toml rules and .mcp.json"),
    "eval": ("vibe_tui.cli.evals", "run the eval tasks: vibe-tui eval [--model M] [--runs N]"),
    "local": ("vibe_tui.cli.local_model", "the embedded local model: vibe-tui local fetch [NAME]"),
}


def run_subcommand(name: str, argv: list[str]) -> int:
    import importlib

    module_name, _ = SUBCOMMANDS[name]
    if name == "policy":
        if not argv or argv[0] != "check":
            print("usage: vibe-tui policy check [--mode M] [--allow R] [--deny R] < calls.jsonl",
                  file=sys.stderr)
            return 2
        argv = argv[1:]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        print(f"vibe-tui {name}: not available in this build", file=sys.stderr)
        return 2
    return module.main(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in SUBCOMMANDS:
        return run_subcommand(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    try:
        config = config_from_args(args)
        if args.task is not None:
            return asyncio.run(_headless(args, config))
        session = open_session(args, config, interactive=True)
    except (LookupError, ValueError, OSError) as exc:
        print(f"vibe-tui: {exc}", file=sys.stderr)
        return 2
    set_screen_rate()
    from vibe_tui.app import run_tui

    return run_tui(session, args.port if args.web else None)


def set_screen_rate() -> None:
    """Textual paints a changed screen at most ``TEXTUAL_FPS`` times a second (60 unless
    set): a key typed just after a frame waited up to 17 ms for the next one. Frames are
    painted only when something changed, so a higher cap costs nothing while the screen is
    still. Read once, when Textual is imported: this must come first."""
    os.environ.setdefault("TEXTUAL_FPS", str(SCREEN_FPS))


async def _headless(args: argparse.Namespace, config: Config) -> int:
    from vibe_tui.cli.headless import run_headless

    session = open_session(args, config, interactive=False)
    return await with_model(session, "vibe-tui",
                            lambda: run_headless(session, args.task, args.output_format))


async def with_model(session: Session, command: str,
                     view: Callable[[], Awaitable[int]]) -> int:
    """Run ``view`` once the session's model is up (the local one when none is
    configured; its progress on stderr); exit code 2 when it could not start. The session
    closes after, and with it the local model's server, however the view ended."""
    from vibe_tui.cli.headless import start_model

    session.start_mcp()  # the servers start while the local model loads
    try:
        failed = await start_model(session)
        if failed is not None:
            print(f"{command}: {NO_MODEL_FAILURE}{failed.error}", file=sys.stderr)
            return 2
        return await view()
    finally:
        await session.close()


if __name__ == "__main__":
    sys.exit(main())
