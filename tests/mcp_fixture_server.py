"""A small MCP server for the tests, built with the official SDK (``MCPServer``).

    python tests/mcp_fixture_server.py            # stdio
    python tests/mcp_fixture_server.py http       # streamable HTTP on 127.0.0.1, a free
                                                  # port, printed as "PORT <n>" on stdout
    python tests/mcp_fixture_server.py fail       # says why on stderr and exits 3

Its tools: ``echo`` (read-only hint), ``add`` (structured result), ``picture`` (an image),
``slow`` (answers after a while, for timeouts), ``pid`` (its process id, so a test can
end it), ``shout`` (text carrying a terminal escape sequence).
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys

from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("fixture")

# A 1x1 PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@server.tool(annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False))
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}


@server.tool()
def picture() -> Image:
    """A tiny picture."""
    return Image(data=PIXEL, format="png")


@server.tool()
async def slow(seconds: float) -> str:
    """Answer after a while."""
    await asyncio.sleep(seconds)
    return "done"


@server.tool()
def pid() -> str:
    """This server's process id."""
    return str(os.getpid())


@server.tool()
def shout() -> str:
    """Text with an escape sequence in it."""
    return "\x1b]52;c;ZXZpbA==\x07loud"


def run_http() -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "fail":
        print("fixture: cannot start, \x1b[31mno database\x1b[0m configured", file=sys.stderr)
        sys.exit(3)
    if mode == "http":
        run_http()
    else:
        server.run()
