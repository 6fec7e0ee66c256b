"""Which MCP servers to start, read from the user's and a trusted project's files.

    [mcp.servers.git]                       # ~/.config/vibe-tui/config.toml
    command = "uvx"                         # stdio: a program, its arguments,
    args = ["mcp-server-git", "-r", "."]    # extra environment variables and
    env = { GIT_PAGER = "cat" }             # (optional) a working folder
    timeout = 60                            # seconds one call may take

    [mcp.servers.docs]
    url = "http://127.0.0.1:8000/mcp"       # streamable HTTP
    headers = { Authorization = "Bearer ${DOCS_TOKEN}" }

A project's ``.vibe/config.toml`` (same tables) and ``.mcp.json`` (Claude Code's format:
``{"mcpServers": {"name": {"command": ..., "args": [...]}}}`` or ``{"type": "http",
"url": ...}``) count only in a folder the user trusts: a cloned repository must not start
programs by being opened. ``${VAR}`` and ``${VAR:-default}`` are expanded in every string,
as Claude Code does, so tokens stay out of the files. The user's own entry wins over a
project's of the same name. A malformed entry is skipped with a message saying why; it
never stops the others.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vibe_tui.config.paths import config_dir
from vibe_tui.config.trusted_folders import is_trusted, project_config_path

DEFAULT_CALL_TIMEOUT_S = 60.0
DEFAULT_STARTUP_TIMEOUT_S = 30.0
PROJECT_MCP_JSON = ".mcp.json"

Transport = Literal["stdio", "http"]

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class SpecError(ValueError):
    """A server entry that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class ServerSpec:
    """One configured server, ready to start."""

    name: str
    source: str  # the file it came from, for messages
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S
    enabled: bool = True

    def describe(self) -> str:
        """One line for the /mcp screen; header values (tokens) are never shown."""
        if self.transport == "http":
            names = ", ".join(name for name, _ in self.headers)
            return f"http {self.url}" + (f" (headers: {names})" if names else "")
        return " ".join(["stdio", self.command or "", *self.args])


def load_server_specs(workspace: Path, user_config: Path | None = None,
                      trusted: bool | None = None) -> tuple[list[ServerSpec], list[str]]:
    """Every usable server in start order, and a message per entry that was skipped."""
    user_config = user_config or config_dir() / "config.toml"
    if trusted is None:
        trusted = is_trusted(workspace)
    specs: dict[str, ServerSpec] = {}
    problems: list[str] = []
    sources = [(user_config, _toml_servers)]
    if trusted:
        sources += [(project_config_path(workspace), _toml_servers),
                    (workspace / PROJECT_MCP_JSON, _json_servers)]
    elif (workspace / PROJECT_MCP_JSON).is_file():
        problems.append(f"ignored {PROJECT_MCP_JSON}: this folder is not trusted, so its "
                        "MCP servers were not started")
    for path, read in sources:
        try:
            entries = read(path)
        except SpecError as exc:
            problems.append(str(exc))
            continue
        for name, table in entries.items():
            _add(specs, problems, name, table, path, workspace)
    return list(specs.values()), problems


def _add(specs: dict[str, ServerSpec], problems: list[str], name: str, table: Any,
         path: Path, workspace: Path) -> None:
    if name in specs:
        problems.append(f"{path}: MCP server {name!r} is already defined in "
                        f"{specs[name].source}; that one is used")
        return
    try:
        specs[name] = parse_spec(name, table, str(path), workspace)
    except SpecError as exc:
        problems.append(str(exc))


def _toml_servers(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"{path}: cannot read it for MCP servers: {exc}") from None
    section = raw.get("mcp", {})
    if not isinstance(section, dict):
        raise SpecError(f"{path}: [mcp] must be a table")
    servers = section.get("servers")
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise SpecError(f"{path}: [mcp.servers] must be a table of servers")
    return servers


def _json_servers(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SpecError(f"{path}: not valid JSON: {exc}") from None
    servers = raw.get("mcpServers") if isinstance(raw, dict) else None
    if servers is None:
        return {}
    if not isinstance(servers, dict):
        raise SpecError(f"{path}: mcpServers must be an object of servers")
    return servers


def parse_spec(name: str, table: Any, source: str, workspace: Path) -> ServerSpec:
    """A ServerSpec from one ``[mcp.servers.NAME]`` table or ``.mcp.json`` entry."""
    where = f"{source}: MCP server {name!r}"
    if not isinstance(table, dict):
        raise SpecError(f"{where} must be a table")
    if not name or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise SpecError(f"{where}: a name may hold letters, digits, '_', '-' and '.' only")
    kind = str(table.get("type", "http" if "url" in table else "stdio")).lower()
    common = dict(name=name, source=source, enabled=_flag(table, where),
                  timeout_s=_seconds(table, "timeout", DEFAULT_CALL_TIMEOUT_S, where),
                  startup_timeout_s=_seconds(table, "startup_timeout",
                                             DEFAULT_STARTUP_TIMEOUT_S, where))
    if kind in ("http", "streamable-http", "streamable_http", "streamablehttp"):
        url = _expand(_string(table, "url", where), where)
        if not url.startswith(("http://", "https://")):
            raise SpecError(f"{where}: url must start with http:// or https://")
        return ServerSpec(transport="http", url=url,
                          headers=_pairs(table, "headers", where), **common)
    if kind == "sse":
        raise SpecError(f"{where}: the SSE transport is not supported; use the server's "
                        "streamable HTTP endpoint (type = \"http\")")
    if kind != "stdio":
        raise SpecError(f"{where}: unknown type {kind!r} (stdio or http)")
    command = _expand(_string(table, "command", where), where)
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise SpecError(f"{where}: args must be a list of strings")
    cwd = table.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise SpecError(f"{where}: cwd must be a string")
    folder = workspace / os.path.expanduser(_expand(cwd, where)) if cwd else workspace
    return ServerSpec(transport="stdio", command=command,
                      args=tuple(_expand(str(a), where) for a in args),
                      env=_pairs(table, "env", where), cwd=str(folder), **common)


def _string(table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"{where}: {key} must be a non-empty string")
    return value


def _pairs(table: dict[str, Any], key: str, where: str) -> tuple[tuple[str, str], ...]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise SpecError(f"{where}: {key} must be a table of names and values")
    return tuple((str(k), _expand(str(v), where)) for k, v in value.items())


def _seconds(table: dict[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise SpecError(f"{where}: {key} must be a number of seconds above 0")
    return float(value)


def _flag(table: dict[str, Any], where: str) -> bool:
    """``enabled = false`` (ours) or ``"disabled": true`` (other agents') keep it off."""
    enabled, disabled = table.get("enabled", True), table.get("disabled", False)
    if not isinstance(enabled, bool) or not isinstance(disabled, bool):
        raise SpecError(f"{where}: enabled and disabled must be true or false")
    return enabled and not disabled


def _expand(text: str, where: str) -> str:
    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if found is not None:
            return found
        if default is not None:
            return default
        raise SpecError(f"{where}: uses ${{{name}}}, which is not set")

    return _VARIABLE.sub(value, text)
