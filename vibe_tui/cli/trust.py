"""``vibe-tui trust [-C DIR]``: show what a project's own settings would do, then trust them.

A project's ``.vibe/config.toml`` rules and ``.mcp.json`` servers count only once the user
has trusted the folder as it is now; this is the way to do that without the app (the
app's ``/trust`` does the same).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vibe_tui.config.trusted_folders import (
    MCP_JSON,
    PROJECT_CONFIG,
    describe_project_settings,
    is_trusted,
    trust,
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vibe-tui trust", description=__doc__.splitlines()[0])
    parser.add_argument("-C", "--cwd", type=Path, default=None, help="the folder to trust")
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    args = parser.parse_args(argv)
    workspace = (args.cwd or Path.cwd()).resolve()
    lines = describe_project_settings(workspace)
    if not lines:
        print(f"{workspace} has no {PROJECT_CONFIG}, {MCP_JSON} or commands: nothing to trust")
        return 0
    if is_trusted(workspace):
        print(f"{workspace} is already trusted as it is now")
        return 0
    print("\n".join(lines))
    if not args.yes and input("Trust these settings? [y/N] ").strip().lower() not in ("y", "yes"):
        print("not trusted")
        return 1
    trust(workspace)
    print(f"trusted {workspace}: its rules and servers apply from the next session")
    return 0
