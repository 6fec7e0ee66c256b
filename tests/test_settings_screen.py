"""The settings screen over a small host app with a real Session on the fake model server:
switching provider, Test against the fake server and a dead port, Apply, persistence and
the key file."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input, OptionList, Static

from app_helpers import events_of, litellm_loaded, wait_for  # noqa: F401 - fixtures
from engine_helpers import fake_local_start
from vibe_tui.config.credentials import credentials_path, stored_keys
from vibe_tui.config.settings import Config, load_config
from vibe_tui.core import events as ev
from vibe_tui.config.providers import PROVIDERS, PROVIDERS_BY_ID
from vibe_tui.core.session import Session
from vibe_tui.screens.settings import SettingsResult, SettingsScreen
from vibe_tui.testing.fake_llm import FakeLLM
from vibe_tui.testing.script import text
from vibe_tui.widgets.model_picker import ModelPicker

SIZE = (120, 44)
NO_RESULT = object()


class Host(App):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.result: object = NO_RESULT

    def on_mount(self) -> None:
        self.push_screen(SettingsScreen(self.session), callback=self._settings_done)

    def _settings_done(self, result: SettingsResult | None) -> None:
        self.result = result


@pytest.fixture
def other_llm():
    """The server the user switches to."""
    with FakeLLM() as llm:
        yield llm


@pytest.fixture
def session(fake_llm, tmp_path: Path):
    return Session(Config(model=fake_llm.model, api_base=fake_llm.base_url,
                          model_retry_base_s=0.01), workspace=tmp_path)


def dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def choose_provider(pilot, provider_id: str) -> SettingsScreen:
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    index = PROVIDERS.index(PROVIDERS_BY_ID[provider_id])
    screen.query_one("#providers", OptionList).highlighted = index
    await wait_for(pilot, lambda: screen.provider is PROVIDERS_BY_ID[provider_id],
                   what=provider_id)
    return screen


async def enter_base_url(pilot, screen: SettingsScreen, url: str) -> None:
    field = screen.query_one("#base-url", Input)
    field.value = url
    field.focus()
    await pilot.press("enter")  # lists the server's models


async def test_switch_to_a_server_test_then_apply(session, fake_llm, other_llm):
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "openai_compatible")
        assert "key: not needed" in shown(screen, "#key-status")
        await enter_base_url(pilot, screen, other_llm.base_url)
        picker = screen.query_one(ModelPicker)
        await wait_for(pilot, lambda: picker.models == ["openai/fake-model"], what="/v1/models")
        assert "1 model ·" in shown(screen, "#models-status")
        picker.value = "other-model"  # free text: not in the server's list

        other_llm.push(text("OK"))
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "ms" in shown(screen, "#test-result"), what="latency")
        assert "openai/other-model: OK · answered in" in shown(screen, "#test-result")
        probe = other_llm.requests[-1]
        assert probe["model"] == "other-model" and probe["max_tokens"] == 1

        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.result is not NO_RESULT, what="dismissed")
        result = app.result
        assert isinstance(result, SettingsResult)
        assert (result.provider, result.model, result.api_base) == (
            "openai_compatible", "openai/other-model", other_llm.base_url)
        assert "from the next model call" in result.summary()

        assert session.model == "openai/other-model"
        assert session.config.api_base == other_llm.base_url
        assert [e.model for e in session.event_log if isinstance(e, ev.ModelChanged)] == [
            "openai/other-model"]
        other_llm.push(text("hello from the other server"))
        session.send("hi")
        await session.wait_idle()
        asked = other_llm.requests[-1]
        assert asked["model"] == "other-model"
        assert asked["messages"][-1]["content"] == "hi"
        assert fake_llm.requests == []  # the old server is not asked again

    saved = load_config()
    assert (saved.provider, saved.model, saved.api_base) == (
        "openai_compatible", "openai/other-model", other_llm.base_url)


async def test_a_dead_port_gives_clear_errors(session):
    dead = f"http://127.0.0.1:{dead_port()}/v1"
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "openai_compatible")
        await enter_base_url(pilot, screen, dead)
        await wait_for(pilot, lambda: "cannot reach" in shown(screen, "#models-status"),
                       what="list error")
        assert "type a model name instead" in shown(screen, "#models-status")
        screen.query_one(ModelPicker).value = "anything"
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "failed" in shown(screen, "#test-result"), what="test")
        assert "failed: Connection error. (" in shown(screen, "#test-result")
        assert app.result is NO_RESULT  # still open, nothing applied


async def test_the_provider_error_is_shown_as_it_came(session, other_llm):
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "openai_compatible")
        await enter_base_url(pilot, screen, other_llm.base_url)
        screen.query_one(ModelPicker).value = "fake-model"
        from vibe_tui.testing.script import error

        other_llm.push(error(401))
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "failed" in shown(screen, "#test-result"), what="test")
        assert "failed: Incorrect API key provided: sk-test." in shown(screen, "#test-result")


async def test_bad_input_is_explained_and_kept(session, fake_llm):
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "openai_compatible")
        screen.query_one("#base-url", Input).value = ""
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: shown(screen, "#message"), what="message")
        assert "needs a base URL" in shown(screen, "#message")
        screen.query_one("#base-url", Input).value = fake_llm.base_url
        screen.query_one("#context-window", Input).value = "12"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "too small" in shown(screen, "#message"), what="window")
        assert screen.query_one("#context-window", Input).value == "12"
        assert app.result is NO_RESULT and session.model == fake_llm.model


async def test_typed_text_survives_browsing_other_providers(session):
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "ollama")
        assert screen.query_one("#base-url", Input).value == "http://127.0.0.1:11434"
        screen.query_one(ModelPicker).value = "qwen3:8b"
        screen = await choose_provider(pilot, "anthropic")
        assert screen.query_one(ModelPicker).value == ""
        assert "ANTHROPIC_API_KEY" in shown(screen, "#key-status")
        screen = await choose_provider(pilot, "ollama")
        assert screen.query_one(ModelPicker).value == "qwen3:8b"


async def test_a_typed_key_is_stored_0600_and_kept_out_of_the_records(session, other_llm,
                                                                      monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    secret = "sk-typed-secret-4711"
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "groq")
        assert "missing" in shown(screen, "#key-status")
        screen.query_one("#key", Input).value = secret
        # Groq's API is OpenAI-shaped: pointed at the fake server, nothing leaves 127.0.0.1.
        screen.query_one("#base-url", Input).value = other_llm.base_url
        screen.query_one(ModelPicker).value = "openai/gpt-oss-20b"
        screen.query_one("#context-window", Input).value = "32768"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.result is not NO_RESULT, what="dismissed")
        assert secret not in app.result.summary()
        assert "key stored (file mode 0600)" in app.result.summary()
        assert session.model == "groq/openai/gpt-oss-20b"
        assert session.config.api_key == secret
        assert session.config.models["groq/openai/gpt-oss-20b"]["context_window"] == 32768
        other_llm.push(text("hi"))
        session.send("hello")
        await session.wait_idle()
        await session.close()

    path = credentials_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stored_keys() == {"groq": secret}
    assert secret not in repr(session.config)
    for record in (session.store_path, session.call_log_path):
        assert record is not None and secret not in record.read_text()
    saved = load_config()
    assert saved.model == "groq/openai/gpt-oss-20b"
    assert saved.models["groq/openai/gpt-oss-20b"]["context_window"] == 32768


async def test_switching_to_the_local_model_and_back(session, other_llm):
    """The session starts the embedded server (here: the fake one stands in for it)."""
    start = session.model_runtime.start_server = fake_local_start(other_llm)
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "local")
        assert screen.query_one("#key", Input).disabled
        picker = screen.query_one(ModelPicker)
        await wait_for(pilot, lambda: "qwen2.5-coder-0.5b" in picker.models, what="local list")
        picker.value = "qwen2.5-coder-0.5b"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.result is not NO_RESULT, what="dismissed")
    assert [server.name for server in start.servers] == ["qwen2.5-coder-0.5b"]
    assert [(e.model, e.cause) for e in events_of(session, ev.ModelReady)] == [
        ("openai/qwen2.5-coder-0.5b", "settings")]
    assert session.model == "openai/qwen2.5-coder-0.5b"
    config = session.config
    assert (config.api_base, config.api_key, config.local_model, config.temperature) == (
        other_llm.base_url, "local-server-key", True, 0.0)
    saved = load_config()
    assert (saved.provider, saved.local_model_name, saved.model, saved.api_base) == (
        "local", "qwen2.5-coder-0.5b", None, None)

    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.provider is PROVIDERS_BY_ID["local"]  # opens on what is in use
        screen = await choose_provider(pilot, "openai_compatible")
        await enter_base_url(pilot, screen, other_llm.base_url)
        screen.query_one(ModelPicker).value = "fake-model"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.result is not NO_RESULT, what="dismissed")
    config = session.config
    assert (config.local_model, config.temperature, config.context_window) == (
        False, None, None)
    assert config.api_key == "sk-no-key"  # never $OPENAI_API_KEY to another server
    assert load_config().local_model_name is None


async def test_escape_closes_without_changes(session, fake_llm):
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        await choose_provider(pilot, "mistral")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.result is None, what="cancelled")
    assert session.model == fake_llm.model
    assert session.config.api_base == fake_llm.base_url


class PromptHost(App):
    def __init__(self, workspace: Path, models: list[str]) -> None:
        super().__init__()
        self.workspace, self.models = workspace, models
        self.sent: list[str] = []

    def compose(self):
        from vibe_tui.widgets.prompt_input import CompletionList, PromptInput

        yield CompletionList()
        yield PromptInput(self.workspace, [("/model", "use another model")],
                          model_names=lambda: self.models)

    def on_prompt_input_submitted(self, message) -> None:
        self.sent.append(message.text)


async def test_model_command_completes_model_names(tmp_path):
    from vibe_tui.widgets.prompt_input import CompletionList, PromptInput

    models = ["openai/gpt-4.1", "anthropic/claude-sonnet-4-5", "openai/gpt-4.1-mini"]
    app = PromptHost(tmp_path, models)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.insert("/model clau")
        listed = app.query_one(CompletionList)
        await wait_for(pilot, lambda: listed.shown, what="completions")
        assert [c.value for c in listed.completions] == ["anthropic/claude-sonnet-4-5"]
        await pilot.press("tab")
        assert prompt.text == "/model anthropic/claude-sonnet-4-5"
        prompt.clear()
        prompt.insert("/model openai/gpt-4.1")
        await wait_for(pilot, lambda: [c.value for c in listed.completions] == [
            "openai/gpt-4.1", "openai/gpt-4.1-mini"], what="the exact name first")
        await pilot.press("enter")  # typed in full: Enter sends it as it is
        assert app.sent == ["/model openai/gpt-4.1"]


async def test_the_model_picker_searches_and_picks(session, fake_llm):
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await choose_provider(pilot, "anthropic")
        picker = screen.query_one(ModelPicker)
        await wait_for(pilot, lambda: len(picker.models) > 3, what="LiteLLM's list")
        search = screen.query_one("#model-input", Input)
        search.focus()
        search.value = "sonnet 4-5"  # every word must match
        options = screen.query_one("#model-options", OptionList)
        listed = lambda: [str(options.get_option_at_index(i).prompt)  # noqa: E731
                          for i in range(options.option_count)]
        await wait_for(pilot, lambda: listed() and all("sonnet-4-5" in m for m in listed()),
                       what="only the matches")
        assert len(listed()) < len(picker.models)
        await pilot.press("down", "enter")
        assert picker.value.startswith("anthropic/claude-sonnet-4-5")


async def test_tab_after_choosing_a_provider_goes_to_its_key_field(session):
    """A new user picks a provider with the arrows; the next thing to fill in is its key."""
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert screen.query_one("#providers", OptionList).has_focus
        anthropic = PROVIDERS.index(PROVIDERS_BY_ID["anthropic"])
        current = screen.query_one("#providers", OptionList).highlighted
        await pilot.press(*(["down"] * (anthropic - current) if anthropic > current
                            else ["up"] * (current - anthropic)))
        await wait_for(pilot, lambda: screen.provider is PROVIDERS_BY_ID["anthropic"],
                       what="anthropic")
        await pilot.press("tab")
        assert app.focused is screen.query_one("#key", Input)


async def test_the_model_list_shows_every_model_with_the_current_one_highlighted(fake_llm,
                                                                                tmp_path):
    """The Model field holds the model in use; the list is not narrowed to it until the
    user types there."""
    session = Session(Config(model="anthropic/claude-sonnet-4-5"), workspace=tmp_path)
    app = Host(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        picker = screen.query_one(ModelPicker)
        await wait_for(pilot, lambda: len(picker.models) > 3, what="LiteLLM's list")
        options = screen.query_one("#model-options", OptionList)
        assert picker.value == "anthropic/claude-sonnet-4-5"
        assert options.option_count == len(picker.models)
        highlighted = options.get_option_at_index(options.highlighted or 0).prompt
        assert str(highlighted) == "anthropic/claude-sonnet-4-5"
        search = screen.query_one("#model-input", Input)
        search.focus()
        search.value = "haiku"  # typing narrows it
        await wait_for(pilot, lambda: 0 < options.option_count < len(picker.models),
                       what="only the matches")
