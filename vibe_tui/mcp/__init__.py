"""MCP servers: their configuration and the session's manager (see ``manager``)."""

from vibe_tui.mcp.config import ServerSpec, SpecError, load_server_specs, parse_spec
from vibe_tui.mcp.manager import McpManager, McpServer

__all__ = ["McpManager", "McpServer", "ServerSpec", "SpecError", "load_server_specs",
           "parse_spec"]
