"""The provider catalogue behind the settings screen and ``/model`` completion.

Each provider: its LiteLLM prefix, the environment variables its key is read from, its
default base URL, and where its model list comes from (LiteLLM's bundled list, a
server's ``/v1/models``, Ollama's ``/api/tags``, or the embedded model's names). Also the
key status and the models used recently. Asking a provider for its models or for a
one-token Test goes through the model adapter: ``core/model_listing.py``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Literal

from vibe_tui.config.credentials import stored_keys
from vibe_tui.config.paths import data_dir

Listing = Literal["litellm", "server", "ollama", "local"]
KeyStatus = Literal["env", "stored", "missing", "not needed"]
RECENT_FILE = "recent_models.json"
RECENT_MAX = 12


@dataclass(frozen=True)
class Provider:
    id: str
    label: str
    prefix: str  # what LiteLLM model strings of this provider start with
    key_env: tuple[str, ...] = ()  # any of these holds the key; a typed key goes to the first
    base_url: str | None = None  # its default endpoint (shown; sent only when changed)
    listing: Listing = "litellm"
    litellm_names: tuple[str, ...] = ()  # ``litellm_provider`` values of its models
    needs_base_url: bool = False
    key_required: bool = True
    key_note: str = ""  # how to give a key the screen cannot take

    @property
    def takes_typed_key(self) -> bool:
        return not self.key_note


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", "openai", ("OPENAI_API_KEY",), "https://api.openai.com/v1",
             litellm_names=("openai",)),
    Provider("anthropic", "Anthropic", "anthropic", ("ANTHROPIC_API_KEY",),
             "https://api.anthropic.com", litellm_names=("anthropic",)),
    Provider("mistral", "Mistral", "mistral", ("MISTRAL_API_KEY",), "https://api.mistral.ai/v1",
             litellm_names=("mistral",)),
    Provider("gemini", "Google Gemini", "gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
             "https://generativelanguage.googleapis.com", litellm_names=("gemini",)),
    # LiteLLM bundles no OpenRouter list; its own /models answers without a key.
    Provider("openrouter", "OpenRouter", "openrouter", ("OPENROUTER_API_KEY",),
             "https://openrouter.ai/api/v1", listing="server"),
    Provider("groq", "Groq", "groq", ("GROQ_API_KEY",), "https://api.groq.com/openai/v1",
             litellm_names=("groq",)),
    Provider("deepseek", "DeepSeek", "deepseek", ("DEEPSEEK_API_KEY",),
             "https://api.deepseek.com", litellm_names=("deepseek",)),
    Provider("azure", "Azure OpenAI", "azure", ("AZURE_API_KEY",), None,
             litellm_names=("azure",), needs_base_url=True),
    Provider("bedrock", "AWS Bedrock", "bedrock", ("AWS_ACCESS_KEY_ID", "AWS_PROFILE"), None,
             litellm_names=("bedrock", "bedrock_converse"),
             key_note="set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) "
                      "and AWS_REGION_NAME in the environment"),
    Provider("ollama", "Ollama", "ollama_chat", (), "http://127.0.0.1:11434",
             listing="ollama", key_required=False),
    Provider("openai_compatible", "OpenAI-compatible server", "openai", (),
             "http://127.0.0.1:1234/v1", listing="server", needs_base_url=True,
             key_required=False),
    Provider("local", "Local (embedded)", "openai", (), None, listing="local",
             key_required=False, key_note="runs on this machine: no key"),
)
PROVIDERS_BY_ID = {provider.id: provider for provider in PROVIDERS}


def key_envs() -> dict[str, tuple[str, ...]]:
    """Provider id -> its key variables, for ``config.use_stored_keys`` at start."""
    return {p.id: p.key_env for p in PROVIDERS if p.takes_typed_key}


def key_status(provider: Provider, environ: dict[str, str] | None = None,
               stored: dict[str, str] | None = None) -> tuple[KeyStatus, str]:
    """Where the key comes from, and a line saying so (never the key itself). A stored
    key copied into the environment at start counts as stored."""
    environ = os.environ if environ is None else environ
    if stored is None:
        try:
            stored = stored_keys()
        except ValueError as exc:
            stored, damaged = {}, str(exc)
        else:
            damaged = ""
    else:
        damaged = ""
    saved = stored.get(provider.id)
    in_env = next((name for name in provider.key_env if environ.get(name)), None)
    if saved and (in_env is None or environ.get(in_env) == saved):
        return "stored", "key: stored in vibe-tui's credentials file"
    if in_env:
        return "env", f"key: found in ${in_env}"
    if not provider.key_required:
        return "not needed", "key: not needed" + (f" ({provider.key_note})"
                                                    if provider.key_note else "")
    where = provider.key_note or "set $" + " or $".join(provider.key_env) + " or type one here"
    return "missing", f"key: missing · {where}" + (f" · {damaged}" if damaged else "")


def provider_of(model: str, api_base: str | None = None) -> Provider:
    """The catalogue entry a model string belongs to (a base URL with a plain ``openai/``
    model means an OpenAI-compatible server)."""
    prefix = model.split("/", 1)[0] if "/" in model else "openai"
    if prefix in ("ollama", "ollama_chat"):
        return PROVIDERS_BY_ID["ollama"]
    if prefix == "openai" and api_base and not api_base.startswith("https://api.openai.com"):
        return PROVIDERS_BY_ID["openai_compatible"]
    for provider in PROVIDERS:
        if provider.prefix == prefix and provider.listing != "local":
            return provider
    return PROVIDERS_BY_ID["openai"]


def qualified(provider: Provider, name: str) -> str:
    """``name`` as a LiteLLM model string of ``provider`` (its prefix added if missing)."""
    name = name.strip()
    if provider.id == "ollama" and name.startswith("ollama/"):
        return "ollama_chat/" + name.removeprefix("ollama/")
    return name if name.startswith(provider.prefix + "/") else f"{provider.prefix}/{name}"


# ---- recently used models, for /model completion ---------------------------------------


def recent_models() -> list[str]:
    try:
        data = json.loads((data_dir() / RECENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [m for m in data if isinstance(m, str)] if isinstance(data, list) else []


def remember_model(model: str) -> None:
    """Put ``model`` first in the recent list (best effort: a read-only home loses it)."""
    if not model:
        return
    models = [model, *(m for m in recent_models() if m != model)][:RECENT_MAX]
    path = data_dir() / RECENT_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(".tmp")
        scratch.write_text(json.dumps(models), encoding="utf-8")
        os.replace(scratch, path)
    except OSError:
        pass
