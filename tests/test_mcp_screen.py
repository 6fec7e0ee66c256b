"""The /mcp screen against real servers: states, tools, a failure's stderr made safe, and
turning a server off and on."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList, Static

from engine_helpers import wait_until
from test_mcp_servers import fixture_spec
from vibe_tui.mcp import McpManager
from vibe_tui.screens.mcp import NO_SERVERS, McpScreen


class ScreenApp(App):
    def __init__(self, manager: McpManager) -> None:
        super().__init__()
        self.manager = manager

    def on_mount(self) -> None:
        self.manager.start()
        self.push_screen(McpScreen(self.manager))


def details(app: App) -> str:
    return str(app.screen.query_one("#details", Static).content)


def entries(app: App) -> list[str]:
    servers = app.screen.query_one("#servers", OptionList)
    return [str(servers.get_option_at_index(i).prompt) for i in range(servers.option_count)]


async def test_the_screen_shows_servers_and_turns_one_off_and_on(tmp_path):
    manager = McpManager([fixture_spec(tmp_path, "fx"), fixture_spec(tmp_path, "bad", "fail")])
    app = ScreenApp(manager)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(lambda: not manager.starting)
            await wait_until(lambda: "ready" in details(app))
            assert entries(app)[0].startswith("fx  ready, ")
            assert "mcp__fx__echo: Say the text back.  [read-only, not destructive]" in details(app)
            await pilot.press("down")
            await wait_until(lambda: "no database" in details(app))
            shown = details(app)
            assert entries(app)[1] == "bad  failed"
            assert "last error:" in shown and "\x1b" not in shown  # stderr's colours removed
            await pilot.press("up", "space")
            await wait_until(lambda: manager.servers["fx"].state == "off")
            await wait_until(lambda: entries(app)[0] == "fx  off")
            await pilot.press("space")
            await wait_until(lambda: entries(app)[0].startswith("fx  ready"))
            await pilot.press("escape")
            await wait_until(lambda: not isinstance(app.screen, McpScreen))
    finally:
        await manager.close()


async def test_the_screen_says_how_to_add_a_server_when_there_is_none():
    manager = McpManager([], ["ignored .mcp.json: this folder is not trusted"])
    app = ScreenApp(manager)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert NO_SERVERS in details(app) and "not trusted" in details(app)
        await pilot.press("space", "q")  # nothing to toggle; q closes
        await wait_until(lambda: not isinstance(app.screen, McpScreen))
