"""``vibe-tui trust [-C DIR]``: show what a project's own settings would do, then trust them.

A project's ``.vibe/config.toml`` rules and ``.mcp.json`` servers count only once the user
has trusted the folder as it is now; this is the way to do that without the app (the
app's ``/trust`` does the same).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from vibe_tui.config import MCP_JSON, PROJECT_CONFIG, is_trusted, trust


def describe_project_settings(workspace: Path) -> list[str]:
    """What trusting would turn on, in lines for a person to read."""
    lines = []
    config = workspace / PROJECT_CONFIG
    if config.is_file():
        lines.append(f"{config}:")
        lines += ["  " + line for line in config.read_text(encoding="utf-8").splitlines()]
    servers = workspace / MCP_JSON
    if servers.is_file():
        try:
            names = sorted(json.loads(servers.read_text(encoding="utf-8"))
                           .get("mcpServers", {}))
        except (ValueError, AttributeError):
            names = ["(the file does not parse)"]
        lines.append(f"{servers}: MCP servers {', '.join(names) or '(none)'}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vibe-tui trust", description=__doc__.splitlines()[0])
    parser.add_argument("-C", "--cwd", type=Path, default=None, help="the folder to trust")
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    args = parser.parse_args(argv)
    workspace = (args.cwd or Path.cwd()).resolve()
    lines = describe_project_settings(workspace)
    if not lines:
        print(f"{workspace} has no {PROJECT_CONFIG} or {MCP_JSON}: nothing to trust")
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
