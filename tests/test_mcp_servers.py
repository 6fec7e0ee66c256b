"""MCP servers as real processes: the SDK-built fixture over stdio and streamable HTTP,
and mcp-server-git (from the package index) on a temporary repository."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine_helpers import wait_until
from vibe_tui.mcp import McpManager, parse_spec
from vibe_tui.tools.base import ToolContext, ToolError

FIXTURE = str(Path(__file__).with_name("mcp_fixture_server.py"))
GIT_SERVER = shutil.which("mcp-server-git") or str(Path(sys.executable).with_name("mcp-server-git"))


def fixture_spec(tmp_path: Path, name: str = "fx", *args: str, **table):
    return parse_spec(name, {"command": sys.executable, "args": [FIXTURE, *args], **table},
                      "test", tmp_path)


async def started(*specs) -> McpManager:
    manager = McpManager(list(specs))
    manager.start()
    assert await manager.wait_settled(60)
    return manager


def tool(manager: McpManager, name: str):
    return next(t for t in manager.tools() if t.name == name)


async def call(manager: McpManager, name: str, args: dict, tmp_path: Path):
    return await tool(manager, name).run(args, ToolContext(workspace=tmp_path))


async def test_stdio_server_tools_and_results(tmp_path):
    manager = await started(fixture_spec(tmp_path, timeout=2))
    try:
        server = manager.servers["fx"]
        assert server.state == "ready" and server.server_info.startswith("fixture")
        names = {t.name for t in manager.tools()}
        assert {"mcp__fx__echo", "mcp__fx__add", "mcp__fx__picture", "mcp__fx__slow"} <= names
        echo = tool(manager, "mcp__fx__echo")
        assert echo.parameters["properties"]["text"]["type"] == "string"
        assert echo.hints == ("read-only", "not destructive")
        assert (await call(manager, "mcp__fx__echo", {"text": "hi"}, tmp_path)).text == "echo: hi"
        added = await call(manager, "mcp__fx__add", {"a": 2, "b": 3}, tmp_path)
        assert '"sum": 5' in added.text
        picture = await call(manager, "mcp__fx__picture", {}, tmp_path)
        assert picture.text.startswith("[image: image/png,") and "iVBOR" not in picture.text
        with pytest.raises(ToolError, match="did not answer within 2 s"):
            await call(manager, "mcp__fx__slow", {"seconds": 30}, tmp_path)
        # The server is still usable after a call timed out.
        assert (await call(manager, "mcp__fx__echo", {"text": "again"}, tmp_path)).ok
    finally:
        await manager.close()
    assert manager.servers["fx"].state == "stopped" and manager.tools() == []


async def test_mcp_server_git_answers_about_the_last_commit(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "add the first file"], check=True)
    spec = parse_spec("git", {"command": GIT_SERVER, "args": ["-r", str(repo)]}, "test", repo)
    manager = await started(spec)
    try:
        assert manager.servers["git"].state == "ready", manager.servers["git"].last_error
        log = await call(manager, "mcp__git__git_log", {"repo_path": str(repo), "max_count": 1},
                         tmp_path)
        assert log.ok and "add the first file" in log.text
    finally:
        await manager.close()


async def test_streamable_http_server(tmp_path):
    process = await asyncio.create_subprocess_exec(
        sys.executable, FIXTURE, "http", stdout=asyncio.subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        assert line.startswith("PORT "), line
        url = f"http://127.0.0.1:{line.split()[1]}/mcp"
        spec = parse_spec("web", {"url": url, "headers": {"X-Test": "1"}}, "test", tmp_path)
        manager = await started(spec)
        try:
            assert manager.servers["web"].state == "ready", manager.servers["web"].last_error
            answer = await call(manager, "mcp__web__echo", {"text": "over http"}, tmp_path)
            assert answer.text == "echo: over http"
        finally:
            await manager.close()
    finally:
        process.kill()
        await process.wait()


async def test_a_server_that_fails_to_start_keeps_its_stderr_and_others_run(tmp_path):
    notes = []
    bad = fixture_spec(tmp_path, "bad", "fail")
    missing = parse_spec("missing", {"command": "/nonexistent/mcp-server"}, "test", tmp_path)
    manager = McpManager([bad, missing, fixture_spec(tmp_path)])
    manager.add_listener(lambda server, note: notes.append(note))
    manager.start()
    try:
        assert await manager.wait_settled(60)
        failed = manager.servers["bad"]
        assert failed.state == "failed" and "no database" in failed.stderr
        assert failed.last_error and failed.tools == []
        assert "program not found" in manager.servers["missing"].last_error
        assert manager.servers["fx"].state == "ready"
        assert any(note and "bad failed to start" in note and "no database" in note
                   for note in notes)
        with pytest.raises(ToolError, match="not available"):
            await manager.call("bad", "echo", {"text": "x"})
    finally:
        await manager.close()


async def pid_of(manager: McpManager, tmp_path: Path) -> int:
    return int((await call(manager, "mcp__fx__pid", {}, tmp_path)).text)


async def test_a_server_that_dies_is_restarted_once(tmp_path):
    notes = []
    manager = await started(fixture_spec(tmp_path))
    manager.add_listener(lambda server, note: notes.append(note))
    server = manager.servers["fx"]
    try:
        first = await pid_of(manager, tmp_path)
        os.kill(first, signal.SIGKILL)  # the server we started, by its pid
        await wait_until(lambda: server.restarts == 1 and server.state == "ready")
        assert any(note and "stopped" in note and "restarting" in note for note in notes)
        second = await pid_of(manager, tmp_path)
        assert second != first
        os.kill(second, signal.SIGKILL)
        await wait_until(lambda: server.state == "failed")
        assert "stays off" in notes[-1] and manager.tools() == []
        manager.turn_on("fx")  # by hand it can start again, with a fresh restart
        await wait_until(lambda: server.state == "ready")
        assert server.restarts == 0
    finally:
        await manager.close()


async def test_turning_a_server_off_and_on(tmp_path):
    manager = await started(fixture_spec(tmp_path))
    server = manager.servers["fx"]
    try:
        manager.turn_off("fx")
        await wait_until(lambda: server.state == "off")
        assert manager.tools() == [] and not server.running
        manager.turn_on("fx")
        await wait_until(lambda: server.state == "ready")
        assert tool(manager, "mcp__fx__echo")
    finally:
        await manager.close()
