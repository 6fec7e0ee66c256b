"""What the model client says in the app: a message sent while LiteLLM still imports, and
model calls that fail before any answer (no server, no key)."""

from __future__ import annotations

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
from vibe_tui.core import model as model_adapter
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
