"""The provider catalogue behind the settings screen and ``/model`` completion.

Each provider: its LiteLLM prefix, the environment variables its key is read from, its
default base URL, and where its model list comes from (LiteLLM's bundled list, a
server's ``/v1/models``, Ollama's ``/api/tags``, or the embedded model's names). Also the
key status, the one-token Test, and the models used recently.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Literal

from vibe_tui.config import data_dir, stored_keys
from vibe_tui.core import model as model_adapter

Listing = Literal["litellm", "server", "ollama", "local"]
KeyStatus = Literal["env", "stored", "missing", "not needed"]
LIST_TIMEOUT_S = 5.0
TEST_TIMEOUT_S = 30.0
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


class ProviderError(Exception):
    """A model list or a Test that failed; the message is for the user as it is."""


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


# ---- model lists ------------------------------------------------------------------------

_server_lists: dict[str, list[str]] = {}  # base URL -> models it listed, for completion


async def list_models(provider: Provider, api_base: str | None = None,
                      api_key: str | None = None) -> list[str]:
    """The provider's models as LiteLLM model strings. Raises ProviderError with a
    message for the user when a server cannot be asked."""
    if provider.listing == "litellm":
        await model_adapter.loaded_litellm()
        return model_adapter.provider_models(provider.litellm_names, provider.prefix)
    if provider.listing == "local":
        from vibe_tui.local.catalogue import DEFAULT_LOCAL_MODEL, LIGHT_LOCAL_MODEL

        return [DEFAULT_LOCAL_MODEL, LIGHT_LOCAL_MODEL]
    base = (api_base or provider.base_url or "").rstrip("/")
    if not base:
        raise ProviderError("type the server's base URL first, e.g. http://127.0.0.1:1234/v1")
    if provider.listing == "ollama":
        data = await _get_json(base.removesuffix("/v1") + "/api/tags", api_key)
        names = [m.get("name") or m.get("model") for m in _entries(data, "models")]
    else:
        data = await _get_json(base + "/models", api_key)
        names = [m.get("id") for m in _entries(data, "data")]
    models = sorted(qualified(provider, n) for n in names if isinstance(n, str) and n)
    _server_lists[base] = models
    return models


def _entries(data: Any, key: str) -> list[dict[str, Any]]:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ProviderError(f"the server's answer has no {key!r} list of models")
    return [item for item in items if isinstance(item, dict)]


async def _get_json(url: str, api_key: str | None) -> Any:
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=LIST_TIMEOUT_S) as client:
            response = await client.get(url, headers=headers)
    except httpx.TimeoutException:
        raise ProviderError(f"{url} did not answer within {LIST_TIMEOUT_S:.0f} s") from None
    except httpx.HTTPError as exc:
        raise ProviderError(f"cannot reach {url}: {exc or type(exc).__name__}") from None
    if response.status_code != 200:
        raise ProviderError(f"{url} answered {response.status_code}: "
                            f"{response.text.strip()[:300] or response.reason_phrase}")
    try:
        return response.json()
    except json.JSONDecodeError:
        raise ProviderError(f"{url} did not answer with JSON") from None


# ---- the Test button ----------------------------------------------------------------


@dataclass(frozen=True)
class CheckOutcome:
    ok: bool
    latency_s: float | None = None
    message: str = ""

    def describe(self) -> str:
        if self.ok:
            return f"OK · answered in {self.latency_s * 1000:.0f} ms"
        return f"failed: {self.message}"


async def check_model(model: str, api_base: str | None = None, api_key: str | None = None,
                      timeout_s: float = TEST_TIMEOUT_S) -> CheckOutcome:
    """A one-token request: its latency, or the provider's own error message."""
    settings = model_adapter.ModelSettings(model=model, api_base=api_base or None,
                                           api_key=api_key or None, timeout_s=timeout_s)
    try:
        latency = await model_adapter.probe(settings)
    except model_adapter.ModelError as error:
        return CheckOutcome(False, message=_with_root_cause(error))
    return CheckOutcome(True, latency_s=latency)


def _with_root_cause(error: Exception) -> str:
    """The provider's message, plus the underlying reason when LiteLLM's words hide it
    ("Connection error." says nothing of a refused port or a failed DNS lookup)."""
    message = str(error)
    root, seen = error, set()
    while (following := root.__cause__ or root.__context__) is not None and id(root) not in seen:
        seen.add(id(root))
        root = following
    detail = str(root).strip()
    if root is not error and detail and detail not in message:
        message += f" ({detail[:300]})"
    return message


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


def completion_models(current_model: str, api_base: str | None = None) -> list[str]:
    """Names ``/model`` offers: recent ones first, then the current provider's list (the
    server's, when the settings screen listed it; LiteLLM's once LiteLLM is loaded)."""
    names = list(recent_models())
    if current_model:
        names.append(current_model)
    provider = provider_of(current_model, api_base) if current_model else None
    if api_base and api_base.rstrip("/") in _server_lists:
        names += _server_lists[api_base.rstrip("/")]
    elif provider is not None and provider.listing == "litellm" \
            and model_adapter.litellm_loaded():
        names += model_adapter.provider_models(provider.litellm_names, provider.prefix)
    return list(dict.fromkeys(names))
