"""``vibe-tui local fetch [NAME]`` (also ``python -m vibe_tui.cli.local_model fetch``):
download and verify a local model's weights, exit 0 once they are in the cache;
``vibe-tui local list``: the local models and where they are cached."""

from __future__ import annotations

import argparse
import asyncio
import sys

from vibe_tui.local.catalogue import DEFAULT_LOCAL_MODEL, LOCAL_MODELS, LocalModelError, spec_of
from vibe_tui.local.weights import cached_weights, ensure_weights, stderr_progress


def _fetch_command(name: str) -> int:
    try:
        spec = spec_of(name)
        path = asyncio.run(ensure_weights(name, stderr_progress(spec.title)))
    except LocalModelError as exc:
        print(f"vibe-tui: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nvibe-tui: interrupted; run the command again to resume", file=sys.stderr)
        return 130
    print(path)
    return 0


def _list_command() -> int:
    for name, spec in LOCAL_MODELS.items():
        cached = cached_weights(name)
        print(f"{name:<20} {spec.title:<40} {cached or 'not downloaded'}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vibe-tui local",
                                     description="vibe-tui's embedded local model")
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="download and verify a model's weights")
    fetch.add_argument("name", nargs="?", default=DEFAULT_LOCAL_MODEL, choices=LOCAL_MODELS)
    commands.add_parser("list", help="the local models and where they are cached")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "fetch":
        return _fetch_command(args.name)
    return _list_command()


if __name__ == "__main__":
    sys.exit(main())
