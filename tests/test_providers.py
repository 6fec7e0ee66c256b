"""The provider catalogue: model lists from real HTTP servers on 127.0.0.1 and from
LiteLLM's bundled list, the one-token Test, key status and the 0600 key file, and the
model choice saved into config.toml and read back."""

from __future__ import annotations

import dataclasses
import json
import socket
import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vibe_tui.config.credentials import credentials_path, store_key, stored_keys, use_stored_keys
from vibe_tui.config.paths import config_path
from vibe_tui.config.settings import Config, load_config
from vibe_tui.config.toml_edit import save_model_choice
from vibe_tui.config import providers
from vibe_tui.config.providers import PROVIDERS, PROVIDERS_BY_ID
from vibe_tui.core import model_listing
from vibe_tui.core.model_listing import ProviderError
from vibe_tui.testing.script import error, text


class _TagsHandler(BaseHTTPRequestHandler):
    body = b""
    status = 200

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def ollama():
    """A stand-in for Ollama's /api/tags on 127.0.0.1."""
    handler = type("Handler", (_TagsHandler,), {"body": json.dumps({"models": [
        {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b"},
        {"name": "llama3.2:latest", "model": "llama3.2:latest"}]}).encode()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def dead_base() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


def test_the_catalogue_has_every_provider_the_issue_names():
    assert [p.label for p in PROVIDERS] == [
        "OpenAI", "Anthropic", "Mistral", "Google Gemini", "OpenRouter", "Groq", "DeepSeek",
        "Azure OpenAI", "AWS Bedrock", "Ollama", "OpenAI-compatible server", "Local (embedded)"]
    assert PROVIDERS_BY_ID["anthropic"].key_env == ("ANTHROPIC_API_KEY",)
    assert PROVIDERS_BY_ID["gemini"].prefix == "gemini"
    assert PROVIDERS_BY_ID["openai_compatible"].needs_base_url


async def test_an_openai_compatible_server_lists_its_models(fake_llm):
    provider = PROVIDERS_BY_ID["openai_compatible"]
    assert await model_listing.list_models(provider, fake_llm.base_url) == ["openai/fake-model"]
    # Then /model completion offers them for that server.
    assert "openai/fake-model" in model_listing.completion_models("openai/x", fake_llm.base_url)


async def test_ollama_lists_its_tags(ollama):
    base = f"http://127.0.0.1:{ollama.server_address[1]}"
    models = await model_listing.list_models(PROVIDERS_BY_ID["ollama"], base)
    assert models == ["ollama_chat/llama3.2:latest", "ollama_chat/qwen2.5-coder:7b"]
    assert ollama.paths == ["/api/tags"]


async def test_a_server_that_cannot_list_gives_a_clear_message(ollama):
    provider = PROVIDERS_BY_ID["openai_compatible"]
    with pytest.raises(ProviderError, match=r"cannot reach http://127\.0\.0\.1:\d+/v1/models"):
        await model_listing.list_models(provider, dead_base())
    # Ollama's tags are not an OpenAI list of models.
    base = f"http://127.0.0.1:{ollama.server_address[1]}"
    with pytest.raises(ProviderError, match="no 'data' list"):
        await model_listing.list_models(provider, base)
    with pytest.raises(ProviderError, match="type the server's base URL first"):
        await model_listing.list_models(dataclasses.replace(provider, base_url=None), "")


async def test_litellm_lists_a_providers_chat_models_with_its_prefix():
    models = await model_listing.list_models(PROVIDERS_BY_ID["anthropic"])
    assert models and all(m.startswith("anthropic/claude") for m in models)
    mistral = await model_listing.list_models(PROVIDERS_BY_ID["mistral"])
    assert mistral and all(m.startswith("mistral/") and "mistral/mistral/" not in m
                           for m in mistral)
    assert "qwen2.5-coder-1.5b" in await model_listing.list_models(PROVIDERS_BY_ID["local"])


async def test_check_reports_latency_and_sends_one_token(fake_llm):
    fake_llm.push(text("OK"))
    outcome = await model_listing.check_model(fake_llm.model, fake_llm.base_url, "sk-no-key")
    assert outcome.ok and outcome.latency_s > 0
    assert outcome.describe().startswith("OK · answered in ")
    assert fake_llm.requests[0]["max_tokens"] == 1


async def test_check_reports_the_providers_own_error(fake_llm):
    fake_llm.push(error(404))
    outcome = await model_listing.check_model(fake_llm.model, fake_llm.base_url, "sk-no-key")
    assert not outcome.ok
    assert "The model `fake-model` does not exist" in outcome.message
    dead = await model_listing.check_model("openai/x", dead_base(), "sk-no-key", timeout_s=5)
    assert not dead.ok and dead.message.startswith("Connection error. (")


def test_key_status_env_stored_missing(monkeypatch):
    openai = PROVIDERS_BY_ID["openai"]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert providers.key_status(openai)[0] == "missing"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert providers.key_status(openai) == ("env", "key: found in $OPENAI_API_KEY")
    store_key("openai", "sk-stored")
    assert providers.key_status(openai)[0] == "env"  # the environment's key is another
    monkeypatch.delenv("OPENAI_API_KEY")
    status, line = providers.key_status(openai)
    assert status == "stored" and "sk-stored" not in line
    assert providers.key_status(PROVIDERS_BY_ID["ollama"])[0] == "not needed"


def test_keys_are_stored_0600_and_loaded_into_the_environment(monkeypatch):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("GROQ_API_KEY", "gsk-from-env")
    store_key("mistral", "mk-1")
    store_key("groq", "gsk-stored")
    store_key("openai_compatible", "sk-server")
    path = credentials_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stored_keys() == {"mistral": "mk-1", "groq": "gsk-stored",
                             "openai_compatible": "sk-server"}
    environ = {"GROQ_API_KEY": "gsk-from-env"}
    config = use_stored_keys(Config(provider="openai_compatible"), providers.key_envs(),
                             environ)
    assert environ == {"GROQ_API_KEY": "gsk-from-env", "MISTRAL_API_KEY": "mk-1"}
    assert config.api_key == "sk-server"
    assert "sk-server" not in repr(config)


def test_the_choice_is_saved_into_the_users_config_and_read_back():
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('# my settings\nmode = "plan"\nmodel = "openai/old"\n'
                    'api_base = "http://old"\n\n[permissions]\nallow = ["Bash(npm test:*)"]\n'
                    '\n[models."ollama_chat/qwen3"]\ncontext_window = 4096 # small\n')
    save_model_choice(provider="ollama", model="ollama_chat/qwen3",
                      api_base="http://127.0.0.1:11434", context_window=32768)
    config = load_config()
    assert (config.provider, config.model, config.api_base) == (
        "ollama", "ollama_chat/qwen3", "http://127.0.0.1:11434")
    assert config.models == {"ollama_chat/qwen3": {"context_window": 32768}}
    assert config.mode == "plan" and config.allow == ["Bash(npm test:*)"]
    text_saved = path.read_text()
    assert text_saved.startswith("# my settings\n") and "old" not in text_saved
    # Back to a hosted provider: the base URL goes, a new table is added for the window.
    save_model_choice(provider="openai", model="openai/gpt-4.1", api_base=None,
                      context_window=100_000)
    config = load_config()
    assert (config.model, config.api_base) == ("openai/gpt-4.1", None)
    assert config.models["openai/gpt-4.1"] == {"context_window": 100_000}
    assert config.models["ollama_chat/qwen3"] == {"context_window": 32768}


def test_a_broken_config_is_never_overwritten():
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("model = \n")
    with pytest.raises(ValueError, match="not valid TOML"):
        save_model_choice(provider="openai", model="openai/gpt-4.1", api_base=None,
                          context_window=None)
    assert path.read_text() == "model = \n"


def test_recent_models_come_first_in_completion():
    providers.remember_model("openai/a")
    providers.remember_model("anthropic/b")
    providers.remember_model("openai/a")
    assert providers.recent_models() == ["openai/a", "anthropic/b"]
    names = model_listing.completion_models("anthropic/claude-sonnet-4-5")
    assert names[:3] == ["openai/a", "anthropic/b", "anthropic/claude-sonnet-4-5"]
    assert any(n.startswith("anthropic/claude-") and n != "anthropic/claude-sonnet-4-5"
               for n in names[3:])
