"""The MCP screen (``/mcp``): each configured server, its state, its tools and its last
error, and a key to turn a server off or on for this session.

The server list is on the left (arrows move through it), the selected server's details on
the right. ``space`` (or ``o``) turns the selected server off, or on again (a failed one
gets a fresh start); Esc or ``q`` closes. The screen follows the manager: a server that
becomes ready, fails or restarts is redrawn as it happens. Everything a server said (tool
names and descriptions, errors, stderr) is untrusted and passes through ``safe()``.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from vibe_tui.mcp import McpManager, McpServer
from vibe_tui.safe_text import safe

_KEY = "bold $accent"
STATE_STYLES = {"ready": "$success", "starting": "$warning", "failed": "$error",
                "off": "$text-muted", "stopped": "$text-muted"}
NO_SERVERS = ("No MCP servers are configured. Add a [mcp.servers.NAME] table (command and "
              "args, or url) to your config.toml.")
DESCRIPTION_CHARS = 100


class McpScreen(ModalScreen[None]):
    """The session's MCP servers; turn one off or on."""

    AUTO_FOCUS = "#servers"

    BINDINGS = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
        Binding("space", "toggle", "off / on", show=False),
        Binding("o", "toggle", "off / on", show=False),
    ]

    DEFAULT_CSS = """
    McpScreen {
        align: center middle;
        #dialog {
            width: 90%;
            height: 80%;
            background: $surface;
            border: round $primary;
            padding: 0 1;
        }
        #title { text-style: bold; height: 1; }
        #panes { height: 1fr; }
        #servers { width: 30; height: 1fr; }
        #details-scroll { width: 1fr; height: 1fr; padding: 0 1; }
        #keys { height: 1; color: $text-muted; }
    }
    """

    def __init__(self, manager: McpManager) -> None:
        super().__init__()
        self.manager = manager

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("MCP servers", id="title")
            with Horizontal(id="panes"):
                yield OptionList(id="servers")
                with VerticalScroll(id="details-scroll"):
                    yield Static(id="details")
            yield Static(Content.assemble(("space", _KEY), " turn off / on · ",
                                          ("esc", _KEY), " close"), id="keys")

    def on_mount(self) -> None:
        self.manager.add_listener(self._server_changed)
        self._fill()

    def on_unmount(self) -> None:
        self.manager.remove_listener(self._server_changed)

    # ---- drawing --------------------------------------------------------------------------

    @property
    def selected(self) -> McpServer | None:
        servers = self.query_one("#servers", OptionList)
        if servers.highlighted is None:
            return None
        option = servers.get_option_at_index(servers.highlighted)
        return self.manager.servers.get(option.id or "")

    def _server_changed(self, _server: McpServer, _note: str | None) -> None:
        self.call_later(self._fill)  # drawn on the app's own schedule, not the manager's

    def _fill(self) -> None:
        servers = self.query_one("#servers", OptionList)
        keep = servers.highlighted
        servers.clear_options()
        servers.add_options(Option(server_line(s), id=s.name)
                            for s in self.manager.servers.values())
        if self.manager.servers:
            servers.highlighted = min(keep or 0, len(self.manager.servers) - 1)
        self._show_details()

    @on(OptionList.OptionHighlighted, "#servers")
    def _show_details(self) -> None:
        server = self.selected
        details = self.query_one("#details", Static)
        if server is None:
            lines = [NO_SERVERS, *self.manager.problems]
            details.update(Content(safe("\n\n".join(lines))))
        else:
            details.update(server_details(server))

    # ---- keys -----------------------------------------------------------------------------

    def action_toggle(self) -> None:
        server = self.selected
        if server is None:
            return
        if server.state in ("ready", "starting"):
            self.manager.turn_off(server.name)
        else:
            self.manager.turn_on(server.name)

    def action_close(self) -> None:
        self.dismiss(None)


def server_line(server: McpServer) -> Content:
    """The list entry: name, state, and how many tools when ready."""
    state = server.state
    if state == "ready":
        state = f"ready, {len(server.tools)} tools"
    return Content.assemble((safe(server.name), "bold"), "  ",
                            (state, STATE_STYLES.get(server.state, "")))


def server_details(server: McpServer) -> Content:
    spec = server.spec
    title = safe(server.name) + (f"  ({safe(server.server_info)})" if server.server_info else "")
    lines = [
        safe(spec.describe()),
        f"from {safe(spec.source)}",
        f"calls time out after {spec.timeout_s:g} s; restarted {server.restarts} time(s)",
    ]
    parts: list[Content | str | tuple[str, str]] = [
        (title, "bold"), "  ", (server.state, STATE_STYLES.get(server.state, "")), "\n",
        "\n".join(lines), "\n"]
    if server.tools:
        parts += ["\n", (f"tools ({len(server.tools)})", "bold"), "\n"]
        parts += [tool_line(tool) for tool in server.tools]
    if server.last_error:
        parts += ["\n", ("last error: ", "bold $error"), safe(server.last_error), "\n"]
    if server.stderr:
        parts += ["\n", ("stderr:", "bold"), "\n", safe(server.stderr), "\n"]
    return Content.assemble(*parts)


def tool_line(tool) -> str:
    summary = (tool.description.strip().splitlines() or [""])[0]
    if len(summary) > DESCRIPTION_CHARS:
        summary = summary[:DESCRIPTION_CHARS] + "..."
    hints = f"  [{', '.join(tool.hints)}]" if tool.hints else ""
    return safe(f"  {tool.name}: {summary}{hints}") + "\n"
