"""MCP through a real Session: the fake model calls ``mcp__...`` tools on real servers,
the policy asks or denies, and the results reach the model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine_helpers import make_session, of_type, tool_messages, wait_until
from test_mcp_servers import FIXTURE, GIT_SERVER
from vibe_tui.config.paths import config_dir
from vibe_tui.core import events as ev
from vibe_tui.testing.script import text, tool_call, tool_calls


def configure(*servers: str) -> None:
    """Write the user's config.toml with these ``[mcp.servers.*]`` tables."""
    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(servers))


def fixture_server(name: str = "fx", *args: str, extra: str = "") -> str:
    argv = ", ".join(f'"{a}"' for a in [FIXTURE, *args])
    return f'[mcp.servers.{name}]\ncommand = "{sys.executable}"\nargs = [{argv}]\n{extra}\n'


def pending(session):
    resolved = {e.approval_id for e in of_type(session, ev.ApprovalResolved)}
    return [e for e in of_type(session, ev.ApprovalRequested) if e.approval_id not in resolved]


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


async def started(session) -> None:
    session.start_mcp()
    assert await session.mcp.wait_settled(120)


async def test_the_model_calls_an_mcp_tool_after_an_approval(fake_llm, tmp_path, monkeypatch):
    # The first turn waits for servers still starting; a loaded machine may need long.
    monkeypatch.setattr("vibe_tui.core.session.MCP_TURN_WAIT_S", 120.0)
    configure(fixture_server())
    fake_llm.push(tool_calls(tool_call("mcp__fx__echo", {"text": "hi"}, id="c1")),
                  tool_calls(tool_call("mcp__fx__echo", {"text": "again"}, id="c2")),
                  text("done"))
    session = make_session(fake_llm, tmp_path)
    try:
        session.start_mcp()
        session.send("say hi through the server")  # the first turn waits for the server
        await wait_until(lambda: pending(session))
        notices = [n.text for n in of_type(session, ev.Notice)]
        assert "waiting for MCP servers to start: fx" in notices
        approval = pending(session)[0]
        assert approval.tool == "mcp__fx__echo" and approval.args == {"text": "hi"}
        assert "MCP server fx" in approval.reason and "read-only" in approval.reason
        assert approval.grant == "mcp__fx__echo"
        session.answer(approval.approval_id, "always")  # the second call needs no question
        await session.wait_idle()
        assert len(of_type(session, ev.ApprovalRequested)) == 1
        first = fake_llm.requests[0]
        schema = next(t for t in first["tools"] if t["function"]["name"] == "mcp__fx__echo")
        assert schema["function"]["parameters"]["properties"]["text"]["type"] == "string"
        assert tool_messages(fake_llm.requests[1])[0]["content"] == "echo: hi"
        assert tool_messages(fake_llm.requests[2])[1]["content"] == "echo: again"
        assert of_type(session, ev.TurnEnded)[-1].state == "completed"
    finally:
        await session.close()
    assert session.mcp.servers["fx"].state == "stopped"


async def test_a_deny_rule_wins_and_an_allow_rule_skips_the_question(fake_llm, tmp_path):
    configure(fixture_server())
    fake_llm.push(tool_calls(tool_call("mcp__fx__add", {"a": 1, "b": 2}, id="c1"),
                             tool_call("mcp__fx__echo", {"text": "x"}, id="c2")),
                  text("ok"))
    session = make_session(fake_llm, tmp_path, allow=["mcp__fx__*"], deny=["mcp__fx__add"])
    try:
        await started(session)
        session.send("add and echo")
        await session.wait_idle()
        results = {r.call_id: r for r in of_type(session, ev.ToolResult)}
        assert results["c1"].status == "denied" and "mcp__fx__add" in results["c1"].output
        assert results["c2"].status == "ok" and results["c2"].output == "echo: x"
        assert of_type(session, ev.ApprovalRequested) == []
    finally:
        await session.close()


async def test_an_unanswerable_ask_is_denied_in_headless_sessions(fake_llm, tmp_path):
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session

    configure(fixture_server())
    fake_llm.push(tool_calls(tool_call("mcp__fx__echo", {"text": "x"})), text("ok"))
    session = Session(Config(model=fake_llm.model, api_base=fake_llm.base_url), tmp_path,
                      interactive=False)
    try:
        await started(session)
        session.send("echo")
        await session.wait_idle()
        result = of_type(session, ev.ToolResult)[0]
        assert result.status == "denied" and "--allow 'mcp__fx__echo'" in result.output
    finally:
        await session.close()


async def test_a_server_that_fails_to_start_is_reported_and_the_session_goes_on(fake_llm,
                                                                                tmp_path):
    configure(fixture_server("bad", "fail"), fixture_server("fx"))
    fake_llm.push(text("fine without it"))
    session = make_session(fake_llm, tmp_path)
    try:
        await started(session)
        session.send("hello")
        await session.wait_idle()
        assert of_type(session, ev.TurnEnded)[-1].state == "completed"
        notices = [n.text for n in of_type(session, ev.Notice)]
        assert any("bad failed to start" in n and "no database" in n for n in notices)
        names = tool_names(fake_llm.requests[0])
        assert "mcp__fx__echo" in names and not any(n.startswith("mcp__bad") for n in names)
    finally:
        await session.close()


async def test_a_server_turned_on_later_joins_the_next_turn(fake_llm, tmp_path):
    configure(fixture_server(extra="enabled = false"))
    fake_llm.push(text("one"), text("two"))
    session = make_session(fake_llm, tmp_path)
    try:
        session.start_mcp()
        session.send("first")
        await session.wait_idle()
        assert not any(n.startswith("mcp__") for n in tool_names(fake_llm.requests[0]))
        session.mcp.turn_on("fx")
        await wait_until(lambda: "mcp__fx__echo" in session.tools)
        session.send("second")
        await session.wait_idle()
        assert "mcp__fx__echo" in tool_names(fake_llm.requests[1])
        session.mcp.turn_off("fx")
        await wait_until(lambda: "mcp__fx__echo" not in session.tools)
    finally:
        await session.close()


async def test_what_changed_in_the_last_commit_through_mcp_server_git(fake_llm, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    (repo / "notes.txt").write_text("first line\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "start the notes"], check=True)
    (repo / "notes.txt").write_text("first line\nsecond line\n")
    subprocess.run([*git, "commit", "-qam", "add a second line"], check=True)
    configure(f'[mcp.servers.git]\ncommand = "{GIT_SERVER}"\nargs = ["-r", "."]\n')
    fake_llm.push(tool_calls(tool_call("mcp__git__git_show",
                                       {"repo_path": str(repo), "revision": "HEAD"})),
                  text("The last commit added a second line to notes.txt."))
    session = make_session(fake_llm, Path(repo))
    try:
        await started(session)
        session.send("what changed in the last commit?")
        await wait_until(lambda: pending(session))
        session.answer(pending(session)[0].approval_id, "allow")
        await session.wait_idle()
        shown = tool_messages(fake_llm.requests[1])[0]["content"]
        assert "add a second line" in shown and "+second line" in shown
        assert of_type(session, ev.TurnEnded)[-1].state == "completed"
    finally:
        await session.close()


async def test_an_interrupt_while_waiting_for_servers_keeps_the_prompt(fake_llm, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setattr("vibe_tui.core.session.MCP_TURN_WAIT_S", 120.0)
    configure(fixture_server())
    fake_llm.push(text("answered later"))
    session = make_session(fake_llm, tmp_path)
    try:
        turn = session.send("a prompt worth keeping")
        await wait_until(lambda: of_type(session, ev.Notice))
        assert session.interrupt()
        await session.wait_idle()
        ended = of_type(session, ev.TurnEnded)[-1]
        assert (ended.turn_id, ended.state) == (turn, "interrupted")
        assert [m.text for m in of_type(session, ev.UserMessage)] == ["a prompt worth keeping"]
        assert fake_llm.requests == []
    finally:
        await session.close()
