"""A project's own settings count only in a folder the user trusted, and only as they were
then: a cloned repository, or a pull that changes ``.vibe/config.toml``, ``.mcp.json`` or
a command file, must not be able to allow itself anything."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

from vibe_tui.config.hook_settings import HookSpec, parse_hooks
from vibe_tui.config.paths import config_dir
from vibe_tui.config.settings import Config

PROJECT_CONFIG = Path(".vibe") / "config.toml"
TRUST_FILE = "trusted_folders.json"
RULE_KINDS = ("allow", "deny", "ask")


MCP_JSON = ".mcp.json"  # MCP servers in the format Claude Code reads
# The project's custom commands (core/custom_commands.py): their front matter can allow
# rules and pick a model for a turn, so they count only as they were when trusted.
COMMAND_DIRS = (Path(".vibe") / "commands", Path(".claude") / "commands")
MAX_DIGESTED_FILES = 2000


def project_config_path(workspace: Path) -> Path:
    return workspace / PROJECT_CONFIG


def _digest(path: Path) -> str | None:
    """The project config's fingerprint; None when there is none."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _commands_digest(workspace: Path) -> str | None:
    """One fingerprint of every file under the project's command folders (names, link
    targets, contents); None when there are none."""
    digest = hashlib.sha256()
    count = 0
    for folder in COMMAND_DIRS:
        root = workspace / folder
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*"))[:MAX_DIGESTED_FILES]:
            count += 1
            digest.update(str(path.relative_to(workspace)).encode() + b"\0")
            if path.is_symlink():
                digest.update(b"link:" + os.readlink(path).encode())
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest() if count else None


def _trust_path() -> Path:
    return config_dir() / TRUST_FILE


def _trusted_folders() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_trust_path().read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    return folders if isinstance(folders, dict) else {}


def _folder_key(workspace: Path) -> str:
    return str(workspace.resolve())


def is_trusted(workspace: Path) -> bool:
    """Has the user trusted this folder with its project config as it is now? A config
    changed since (by a pull, by a command) needs trusting again."""
    entry = _trusted_folders().get(_folder_key(workspace))
    if not isinstance(entry, dict):
        return False
    # .mcp.json starts programs: a pull that changes it must be trusted again too.
    return (entry.get("config_sha256") == _digest(project_config_path(workspace))
            and entry.get("mcp_json_sha256") == _digest(workspace / MCP_JSON)
            and entry.get("commands_sha256") == _commands_digest(workspace))


def trust(workspace: Path) -> None:
    """Remember that the user trusts this folder's project config as it is now."""
    folders = _trusted_folders()
    folders[_folder_key(workspace)] = {"config_sha256": _digest(project_config_path(workspace)),
                                       "mcp_json_sha256": _digest(workspace / MCP_JSON),
                                       "commands_sha256": _commands_digest(workspace)}
    path = _trust_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps({"version": 1, "folders": folders}, indent=2) + "\n",
                       encoding="utf-8")
    os.replace(scratch, path)  # whole or not at all: a torn list would forget every folder


def load_project_config(workspace: Path) -> tuple[dict[str, list[str]], str | None]:
    """The project's permission rules by kind ({"allow": [...], ...}), and why they were
    ignored (a sentence for the views) or None. Rules count only in a trusted folder;
    other settings in the file are never read: a project must not pick the model
    endpoint your key is sent to."""
    path = project_config_path(workspace)
    if not path.is_file():
        return {}, None
    entry = _trusted_folders().get(_folder_key(workspace))
    if not is_trusted(workspace):
        why = ("it changed since you trusted this folder" if isinstance(entry, dict)
               else "this folder is not trusted yet")
        return {}, f"ignored {PROJECT_CONFIG}: {why}; trust the folder to use its rules"
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    permissions = raw.get("permissions", {}) or {}
    rules = {kind: [str(r) for r in permissions.get(kind, raw.get(kind, []))]
             for kind in RULE_KINDS}
    try:
        Config(**rules).check_rules()
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return {kind: found for kind, found in rules.items() if found}, None


def load_project_hooks(workspace: Path) -> list[HookSpec]:
    """The trusted project's hooks; none in a folder not trusted as it is now (its hooks
    would run commands a cloned repository chose)."""
    path = project_config_path(workspace)
    if not path.is_file() or not is_trusted(workspace):
        return []
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    return parse_hooks(raw.get("hooks"), path, "project")


def apply_project_config(config: Config, workspace: Path) -> tuple[Config, str | None]:
    """``config`` with the trusted project's rules and hooks added, and the ignored-reason."""
    rules, ignored = load_project_config(workspace)
    merged = {kind: [*getattr(config, kind), *rules.get(kind, [])] for kind in RULE_KINDS}
    hooks = [*config.hooks, *load_project_hooks(workspace)]
    return config.with_overrides(**merged, hooks=hooks), ignored


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
    for folder in COMMAND_DIRS:
        commands = sorted(path.relative_to(workspace / folder).with_suffix("").as_posix()
                          for path in (workspace / folder).rglob("*.md"))
        if commands:
            lines.append(f"{workspace / folder}: commands {', '.join(commands)}")
    return lines
