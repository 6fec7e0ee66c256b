"""Shared helpers for engine tests: a session wired to the fake model server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev
from vibe_tui.core.session import Session
from vibe_tui.testing.script import text, tool_call, tool_calls


def make_session(llm, workspace: Path, **config) -> Session:
    config.setdefault("model_retry_base_s", 0.01)
    return Session(Config(model=llm.model, api_base=llm.base_url, **config), workspace)


async def run_turn(session: Session, text: str, timeout: float = 30) -> ev.TurnEnded:
    """Send ``text`` and wait for the end of that turn."""
    turn_id = session.send(text)
    await asyncio.wait_for(session.wait_idle(), timeout)
    return ended(session, turn_id)


def ended(session: Session, turn_id: int) -> ev.TurnEnded:
    return [e for e in session.event_log if isinstance(e, ev.TurnEnded) and e.turn_id == turn_id][-1]


def of_type(session: Session, cls):
    return [e for e in session.event_log if isinstance(e, cls)]


async def wait_until(predicate, timeout: float = 60.0) -> None:
    """Poll a condition on the event loop (the session runs on it too). Generous: the
    first model call of a process includes LiteLLM's import, seconds on a busy machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.01)


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def subagent_responder(request: dict):
    """The main agent sends one helper, which reads a file and reports."""
    messages = request["messages"]
    if len(messages) > 1 and messages[1]["content"] == "find the constant":
        if not any(m["role"] == "assistant" for m in messages):
            return tool_calls(tool_call("read_file", {"path": "alpha.py"}, id="sub_read"))
        return text("SUBREPORT: ALPHA is 1")
    if messages[-1]["role"] == "user":
        return tool_calls(tool_call("task", {"prompt": "find the constant"}, id="call_task"),
                          content="Sending a helper.")
    return text("MAINANSWER: it is 1")



class FakeLocalServer:
    """Stands in for the local model's llama.cpp server: the fake model server answers."""

    def __init__(self, name: str, base_url: str) -> None:
        self.name = name
        self.base_url = base_url
        self.api_key = "local-server-key"
        self.running = True
        self.model_string = f"openai/{name}"
        self.saved_prefixes: list[str] = []  # what a real server would keep across launches

    async def restore_prefix(self, key: str) -> bool:
        return key in self.saved_prefixes

    async def save_prefix(self, key: str) -> None:
        self.saved_prefixes.append(key)

    async def stop(self) -> None:
        self.running = False


def fake_local_start(llm, *, ready: asyncio.Event | None = None, error: str | None = None,
                     phases=(("download", 50, 100), ("download", 100, 100), ("start", 0, 0))):
    """A ``ModelRuntime.start_server`` reporting ``phases``, then waiting for ``ready`` (when
    given), then failing with ``error`` (when given) or serving through ``llm``. Its
    ``servers`` list holds what it started."""
    from vibe_tui.local.catalogue import LocalModelError

    async def start(progress, name: str):
        for phase, done, total in phases:
            progress(done, total, phase)
        if ready is not None:
            await ready.wait()
        if error is not None:
            raise LocalModelError(error)
        server = FakeLocalServer(name, llm.base_url)
        start.servers.append(server)
        return server.model_string, server.base_url, server

    start.servers = []
    return start
