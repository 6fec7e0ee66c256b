"""MCP servers for one session: started in the background, watched, restarted once.

Each server lives in one asyncio task that owns its connection (the SDK's transports are
anyio context managers, which must be entered and left by the same task): it starts the
transport, says hello, lists the tools, then waits until it is asked to stop or the
server's stream ends. A server that fails to start keeps its error and the tail of its
stderr and stays "failed"; one that dies after starting is restarted once, then left
"failed". Nothing here waits on a server except a caller that asks to
(``wait_settled``), so no view and no turn is held up by a slow one.

The ``mcp`` SDK takes seconds to import: it is imported in a thread, and only when a
server is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from vibe_tui.mcp.config import ServerSpec, load_server_specs
from vibe_tui.tools.base import ToolError
from vibe_tui.tools.mcp import McpTool

log = logging.getLogger(__name__)

State = Literal["off", "starting", "ready", "failed", "stopped"]
MAX_RESTARTS = 1
STDERR_TAIL_CHARS = 4000
CLOSE_GRACE_S = 8.0  # the SDK's own shutdown waits at most about six seconds

# (server, note for the user or None) after every change of state or tools
Listener = Callable[["McpServer", str | None], None]


class McpServer:
    """One configured server and what is known of it now."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self.state: State = "starting" if spec.enabled else "off"
        self.tools: list[McpTool] = []
        self.last_error: str | None = None
        self.stderr: str = ""  # the tail of what it printed, kept after a failure
        self.restarts = 0
        self.server_info: str | None = None  # its name and version, as it says
        self._session: Any = None  # the SDK's ClientSession while ready
        self._task: asyncio.Task | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self._lost = False

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()


class McpManager:
    """The session's MCP servers. ``start()`` schedules them on the running loop."""

    def __init__(self, specs: list[ServerSpec], problems: list[str] | None = None) -> None:
        self.servers: dict[str, McpServer] = {spec.name: McpServer(spec) for spec in specs}
        self.problems = list(problems or [])  # config entries that were skipped, and why
        self._listeners: list[Listener] = []
        self._started = False
        self._closed = False

    @classmethod
    def for_workspace(cls, workspace: Path, user_config: Path | None = None) -> McpManager:
        """Servers from the user's config and, in a trusted folder, the project's files.
        A config that cannot be read becomes a problem to show, never an exception."""
        try:
            specs, problems = load_server_specs(workspace, user_config)
        except (OSError, ValueError) as exc:
            specs, problems = [], [f"MCP servers were not read: {exc}"]
        return cls(specs, problems)

    # ---- listening ---------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def _changed(self, server: McpServer, note: str | None = None) -> None:
        for listener in list(self._listeners):
            try:
                listener(server, note)
            except Exception:  # a view's bug must not stop a server
                log.exception("MCP listener failed")

    # ---- state ---------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._started

    @property
    def starting(self) -> bool:
        return any(server.state == "starting" for server in self.servers.values())

    def tools(self) -> list[McpTool]:
        """The tools of every ready server, in config order."""
        return [tool for server in self.servers.values() if server.state == "ready"
                for tool in server.tools]

    async def wait_settled(self, timeout: float | None = None) -> bool:
        """Wait until no server is starting; False when ``timeout`` ran out first."""
        settled = asyncio.Event()

        def check(_server: McpServer, _note: str | None) -> None:
            if not self.starting:
                settled.set()

        if not self.starting:
            return True
        self.add_listener(check)
        try:
            await asyncio.wait_for(settled.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self.remove_listener(check)

    # ---- starting and stopping -------------------------------------------------------------

    def start(self) -> None:
        """Start every enabled server in the background; later calls do nothing. Needs a
        running event loop."""
        if self._started or self._closed:
            return
        self._started = True
        for server in self.servers.values():
            if server.spec.enabled:
                self._launch(server)

    def turn_off(self, name: str) -> None:
        """Stop a server for the rest of the session (its tools leave the model's list)."""
        server = self.servers[name]
        if server.state == "off":
            return
        if server.running:
            self._stop(server)
        else:
            self._set(server, "off", f"MCP server {name} turned off")

    def turn_on(self, name: str) -> None:
        """Start a server again (also one that failed): it gets a fresh restart."""
        server = self.servers[name]
        if server.running or self._closed:
            return
        server.restarts = 0
        server.last_error = None
        server.stderr = ""
        self._launch(server)

    async def close(self) -> None:
        """Stop every server and wait for them (bounded); the manager stays closed."""
        self._closed = True
        running = [server for server in self.servers.values() if server.running]
        for server in running:
            self._stop(server)
        tasks = [server._task for server in running if server._task is not None]
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=CLOSE_GRACE_S)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    def _launch(self, server: McpServer) -> None:
        server._stopping = False
        server._wake = asyncio.Event()
        self._set(server, "starting")
        server._task = asyncio.get_running_loop().create_task(
            self._supervise(server), name=f"mcp-{server.name}")
        server._task.add_done_callback(functools.partial(self._task_done, server))

    def _task_done(self, server: McpServer, task: asyncio.Task) -> None:
        """The safety net: a task that ended without saying how (a bug of ours, or a
        cancel from outside) must not leave its server "starting" forever."""
        if server._task is not task or server.state not in ("starting", "ready"):
            return
        error = None if task.cancelled() else task.exception()
        if error is not None:
            log.error("MCP server task failed", exc_info=error)
        server.last_error = describe_error(error) if error else "its task was cancelled"
        self._set(server, "stopped" if self._closed else "failed",
                  None if self._closed else f"MCP server {server.name} stopped: "
                                            f"{server.last_error}")

    @staticmethod
    def _stop(server: McpServer) -> None:
        """Ask a server's task to end: a ready one leaves its wait; one still starting is
        cancelled, or a hung server would hold up the session's close."""
        server._stopping = True
        server._wake.set()
        if server.state == "starting" and server._task is not None:
            server._task.cancel()

    def _set(self, server: McpServer, state: State, note: str | None = None) -> None:
        server.state = state
        if state != "ready":
            server.tools = []
            server._session = None
        self._changed(server, note)

    # ---- one server's life ----------------------------------------------------------------

    async def _supervise(self, server: McpServer) -> None:
        name = server.name
        while True:
            ended = await self._connect(server)
            if server._stopping or self._closed:
                self._set(server, "stopped" if self._closed else "off",
                          None if self._closed else f"MCP server {name} turned off")
                return
            if ended == "start_failed":
                self._set(server, "failed", f"MCP server {name} failed to start: "
                          f"{server.last_error}{_stderr_note(server.stderr)}")
                return
            # It was up, then its stream ended: it died.
            if server.restarts >= MAX_RESTARTS:
                self._set(server, "failed", f"MCP server {name} stopped again "
                          f"({server.last_error}); it stays off; /mcp can start it")
                return
            server.restarts += 1
            self._set(server, "starting",
                      f"MCP server {name} stopped ({server.last_error}); restarting it")

    async def _connect(self, server: McpServer) -> str:
        """One connection, start to end: "ended" (it was up; asked to stop, or its stream
        ended) or "start_failed"."""
        server._lost = False
        if not server._stopping:
            server._wake = asyncio.Event()  # the last connection's end must not end this one
        became_ready = False
        errlog = tempfile.TemporaryFile()
        try:
            await _import_sdk()
            async with contextlib.AsyncExitStack() as stack:
                session = await self._open(server, stack, errlog)
                await self._hello(server, session)
                became_ready = True
                if not server._stopping:
                    server._session = session
                    self._set(server, "ready")
                    await server._wake.wait()
                if server._lost and not server._stopping:
                    server.last_error = "the server closed its connection"
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # anything a server does wrong is its failure, not ours
            if _cancelled(exc):
                if not server._stopping:
                    raise
            elif not server._stopping:
                server.last_error = describe_error(exc)
        finally:
            server._session = None
            server.stderr = _tail(errlog)
            errlog.close()
        return "ended" if became_ready or server._stopping else "start_failed"

    async def _open(self, server: McpServer, stack: contextlib.AsyncExitStack, errlog: Any):
        """The transport and a ClientSession on it, with the server's stream watched."""
        import anyio
        from mcp import ClientSession

        read, write = await stack.enter_async_context(_transport(server.spec, errlog))
        watched_send, watched = anyio.create_memory_object_stream(0)
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)  # runs before the group is waited for

        wake = server._wake  # this connection's: a late end of an old one must not count

        def lost() -> None:
            if server._wake is wake:
                server._lost = True
                wake.set()

        group.start_soon(_pump, read, watched_send, lost)
        return await stack.enter_async_context(ClientSession(watched, write))

    async def _hello(self, server: McpServer, session: Any) -> None:
        import anyio

        with anyio.fail_after(server.spec.startup_timeout_s):
            hello = await session.initialize()
            listed = await _list_tools(session)
        info = getattr(hello, "server_info", None)
        if info is not None:
            server.server_info = f"{info.name} {info.version}".strip()
        caller = self._caller(server)
        server.tools = [McpTool(server.name, tool.name, tool.description, tool.input_schema,
                                caller, annotations=tool.annotations, title=tool.title)
                        for tool in listed]

    # ---- calls -----------------------------------------------------------------------------

    def _caller(self, server: McpServer):
        async def call(tool: str, args: dict[str, Any]) -> Any:
            return await self.call(server.name, tool, args)

        return call

    async def call(self, name: str, tool: str, args: dict[str, Any]) -> Any:
        """Call one tool; its CallToolResult. Raises ToolError with a message for the
        model when the server is not there, times out or fails."""
        server = self.servers.get(name)
        session = server._session if server is not None else None
        if server is None or server.state != "ready" or session is None:
            state = server.state if server is not None else "unknown"
            raise ToolError(f"the MCP server '{name}' is not available ({state}); "
                            "its tools cannot be called now")
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        timeout = server.spec.timeout_s
        try:
            return await session.call_tool(tool, args, read_timeout_seconds=timeout)
        except MCPError as exc:
            code = getattr(getattr(exc, "error", None), "code", None)
            if code == REQUEST_TIMEOUT:
                raise ToolError(f"the MCP server '{name}' did not answer within {timeout:g} s; "
                                "the call was abandoned") from None
            if code == CONNECTION_CLOSED:
                raise ToolError(f"the MCP server '{name}' stopped during the call; it may "
                                "not have finished. It is being restarted.") from None
            raise ToolError(f"the MCP server '{name}' refused the call: {exc}") from None
        except Exception as exc:
            raise ToolError(f"the MCP server '{name}' failed: {describe_error(exc)}") from None


# -- helpers ---------------------------------------------------------------------------------


async def _import_sdk() -> None:
    """Import the SDK off the event loop (it takes seconds), once."""
    import sys

    if "mcp" in sys.modules and "mcp.client.streamable_http" in sys.modules:
        return
    import importlib

    def load() -> None:
        importlib.import_module("mcp")
        importlib.import_module("mcp.client.streamable_http")

    await asyncio.to_thread(load)


def _transport(spec: ServerSpec, errlog: Any):
    """The SDK's transport context manager for a spec."""
    if spec.transport == "http":
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(headers=dict(spec.headers),
                                    timeout=httpx2.Timeout(30.0, read=300.0))
        return _with_client(client, streamable_http_client(spec.url, http_client=client))
    from mcp import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=spec.command, args=list(spec.args),
                                   env=dict(spec.env) or None, cwd=spec.cwd)
    return stdio_client(params, errlog=errlog)


@contextlib.asynccontextmanager
async def _with_client(client: Any, transport: Any):
    async with client, transport as streams:
        yield streams


async def _pump(source: Any, sink: Any, on_end: Callable[[], None]) -> None:
    """Pass the server's messages on; when its stream ends, say so."""
    import anyio

    try:
        async with sink:
            async for item in source:
                await sink.send(item)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
        pass
    finally:
        on_end()


async def _list_tools(session: Any) -> list[Any]:
    """Every page of tools/list (bounded: a server that pages forever is cut off)."""
    from mcp_types import PaginatedRequestParams

    tools: list[Any] = []
    cursor = None
    for _ in range(100):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _cancelled(exc: BaseException) -> bool:
    """A cancellation, also one wrapped in exception groups by anyio's task groups."""
    if isinstance(exc, BaseExceptionGroup):
        rest = exc.split(asyncio.CancelledError)[1]
        return rest is None
    return isinstance(exc, asyncio.CancelledError)


def describe_error(exc: BaseException) -> str:
    """One sentence for an error that may be wrapped in exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"program not found: {exc.filename or exc}"
    if isinstance(exc, TimeoutError):
        return "it did not answer in time"
    if _error_code(exc) == _connection_closed():
        return "it closed the connection (the program exited?)"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _error_code(exc: BaseException) -> int | None:
    return getattr(getattr(exc, "error", None), "code", None)


def _connection_closed() -> int | None:
    try:
        from mcp_types import CONNECTION_CLOSED
    except ImportError:
        return None
    return CONNECTION_CLOSED


def _tail(errlog: Any) -> str:
    try:
        size = errlog.seek(0, os.SEEK_END)
        errlog.seek(max(0, size - STDERR_TAIL_CHARS))
        return errlog.read().decode("utf-8", "replace").strip()
    except (OSError, ValueError):
        return ""


def _stderr_note(stderr: str) -> str:
    """The last lines of stderr, for a one-paragraph notice."""
    lines = [line for line in stderr.splitlines() if line.strip()][-3:]
    return (" (stderr: " + " | ".join(lines) + ")") if lines else ""
