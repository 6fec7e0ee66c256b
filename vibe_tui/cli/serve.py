"""``vibe-tui serve``: a session with the web view alone; prints the link."""

from __future__ import annotations

import argparse
import asyncio
import sys

from vibe_tui import cli
from vibe_tui.web.server import serve_forever


def build_parser() -> argparse.ArgumentParser:
    parser = cli.build_parser()
    parser.prog = "vibe-tui serve"
    parser.description = "Run a session with the web view only, on 127.0.0.1."
    return parser  # --port comes from the main parser


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
    return await cli.with_model(session, "vibe-tui serve",
                                lambda: serve_forever(session, args.port))
