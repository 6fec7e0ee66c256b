"""What the model client says in the app: a message sent while LiteLLM still imports, and
model calls that fail before any answer (no server, no key)."""

from __future__ import annotations

import socket
import threading

import pytest

from app_helpers import (  # noqa: F401 - fixtures
    SIZE,
    litellm_loaded,
    make_app,
    no_key_grace,
    screen_text,
    submit,
    wait_for,
    wait_turns_ended,
)
from vibe_tui.app import VibeApp
from vibe_tui.config.settings import Config
from vibe_tui.core import model as model_adapter
from vibe_tui.core.session import Session
from vibe_tui.testing.script import text
from vibe_tui.widgets.conversation import Entry


def entries(app, classes: str) -> list[str]:
    return [str(entry.content) for entry in app.conversation.query(Entry).filter(classes)]


@pytest.fixture
def held_import(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """LiteLLM as if its import were still under way: ``litellm_module`` blocks (in
    whichever thread calls it) until the test sets the returned event."""
    real = model_adapter.litellm_module()
    release = threading.Event()

    def held() -> object:
        if not release.wait(30):
            raise TimeoutError("the test never released the import")
        model_adapter._litellm = real
        return real

    monkeypatch.setattr(model_adapter, "_litellm", None)
    monkeypatch.setattr(model_adapter, "_preload_done", threading.Event())
    monkeypatch.setattr(model_adapter, "litellm_module", held)
    return release


async def test_a_message_sent_while_the_client_loads_says_so_then_goes(
        fake_llm, tmp_path, held_import):
    fake_llm.push(text("loaded and answered"))
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: any("loading the model client" in e
                                          for e in entries(app, ".-notice")),
                       what=f"the loading notice {app.session.event_log}")
        assert fake_llm.requests == []  # held behind the import, and the screen still draws
        await submit(pilot, "/help")  # the app answers keys meanwhile
        assert any("/model NAME" in e for e in entries(app, ".-notice"))
        held_import.set()
        await wait_turns_ended(pilot, app.session)
        await wait_for(pilot, lambda: "loaded and answered" in screen_text(app),
                       what="the answer on screen")
        assert len(fake_llm.requests) == 1
        assert fake_llm.requests[0]["messages"][-1]["content"] == "hello"


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def error_lines(app) -> list[str]:
    return entries(app, ".-error") + entries(app, ".-failed") + entries(app, ".-notice")


async def test_a_refused_connection_names_the_model_and_url_once(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    session = Session(Config(model="openai/fake-model", api_base=url,
                             model_retry_base_s=0.01), workspace=tmp_path)
    app = VibeApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_turns_ended(pilot, session)
        await wait_for(pilot, lambda: entries(app, ".-failed"), what="the failure line")
        shown = [line for line in error_lines(app) if url in line]
        assert len(shown) == 1, error_lines(app)
        assert "openai/fake-model" in shown[0] and "connection refused" in shown[0]
        assert len(shown[0].splitlines()) <= 2
        assert not entries(app, ".-retrying")  # nothing listens: trying again cannot help


async def test_a_missing_key_names_the_variable_and_settings_once(fake_llm, tmp_path,
                                                                  monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    # The fake server as the endpoint: had anything been sent, it would have arrived here.
    session = Session(Config(model="anthropic/claude-sonnet-4-5", api_base=fake_llm.base_url),
                      workspace=tmp_path)
    app = VibeApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_turns_ended(pilot, session)
        await wait_for(pilot, lambda: entries(app, ".-failed"), what="the failure line")
        shown = [line for line in error_lines(app) if "ANTHROPIC_API_KEY" in line]
        assert len(shown) == 1, error_lines(app)
        assert "/settings" in shown[0] and "anthropic/claude-sonnet-4-5" in shown[0]
        assert len(shown[0].splitlines()) <= 2 and len(shown[0]) < 240
        assert fake_llm.requests == []  # LiteLLM refused before sending anything
