"""``vibe-tui serve``: a session with the web view alone; prints the link."""

from __future__ import annotations

import argparse
import asyncio
import sys

from vibe_tui import cli
from vibe_tui.web.server import DEFAULT_PORT, serve_forever


def build_parser() -> argparse.ArgumentParser:
    parser = cli.build_parser()
    parser.prog = "vibe-tui serve"
    parser.description = "Run a session with the web view only, on 127.0.0.1."
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT}, the next free one if taken)")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(_serve(args))
    except (LookupError, ValueError, OSError) as exc:
        print(f"vibe-tui serve: {exc}", file=sys.stderr)
        return 2


async def _serve(args: argparse.Namespace) -> int:
    config = cli.config_from_args(args)
    session = cli.open_session(args, config, interactive=True)
    return await serve_forever(session, args.port)
