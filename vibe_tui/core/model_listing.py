"""Asking providers through the model adapter: their model lists (LiteLLM's bundled list,
a server's ``/v1/models``, Ollama's ``/api/tags``, the embedded model's names), the
settings screen's one-token Test, and the names ``/model`` completes. The catalogue
itself is ``config/providers.py``.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass
from typing import Any

from vibe_tui.config.providers import Provider, provider_of, qualified, recent_models
from vibe_tui.core import model as model_adapter
from vibe_tui.core import model_errors
from vibe_tui.local.catalogue import DEFAULT_LOCAL_MODEL, LIGHT_LOCAL_MODEL

LIST_TIMEOUT_S = 5.0
TEST_TIMEOUT_S = 30.0


class ProviderError(Exception):
    """A model list or a Test that failed; the message is for the user as it is."""


# ---- model lists ------------------------------------------------------------------------

_server_lists: dict[str, list[str]] = {}  # base URL -> models it listed, for completion


async def list_models(provider: Provider, api_base: str | None = None,
                      api_key: str | None = None) -> list[str]:
    """The provider's models as LiteLLM model strings. Raises ProviderError with a
    message for the user when a server cannot be asked."""
    if provider.listing == "litellm":
        return await list_provider_models(provider.litellm_names, provider.prefix)
    if provider.listing == "local":
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


def provider_models(providers: tuple[str, ...], prefix: str) -> list[str]:
    """LiteLLM's chat models for these providers (its bundled list, no network), as model
    strings starting with ``prefix/``, sorted; in a view with a model process, those it
    listed already (``list_provider_models``), else none."""
    remote = model_adapter.remote()
    if remote is not None:
        return remote.known_models(providers, prefix)
    return list(_provider_models(providers, prefix))


async def list_provider_models(providers: tuple[str, ...], prefix: str) -> list[str]:
    remote = model_adapter.remote()
    if remote is not None:
        return await remote.provider_models(providers, prefix)
    await model_adapter.loaded_litellm()
    return provider_models(providers, prefix)


@functools.cache
def _provider_models(providers: tuple[str, ...], prefix: str) -> tuple[str, ...]:
    found: set[str] = set()
    for name, info in model_adapter.litellm_module().model_cost.items():
        if info.get("litellm_provider") not in providers or info.get("mode") != "chat":
            continue
        if "*" in name or name.startswith("ft:"):  # patterns and fine-tune templates
            continue
        found.add(name if name.startswith(prefix + "/") else f"{prefix}/{name}")
    return tuple(sorted(found))


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
        latency = await probe(settings)
    except model_adapter.ModelError as error:
        return CheckOutcome(False, message=_with_root_cause(error))
    return CheckOutcome(True, latency_s=latency)


async def probe(settings: model_adapter.ModelSettings) -> float:
    """A one-token request: seconds until it completed, or ModelError with the provider's
    own message."""
    started = time.monotonic()
    one_token = model_adapter.ModelSettings(model=settings.model, api_base=settings.api_base,
                                            api_key=settings.api_key,
                                            timeout_s=settings.timeout_s, max_tokens=1)
    await model_adapter.stream_completion(one_token, [{"role": "user", "content": "Say OK."}],
                                          [], lambda _text: None)
    return time.monotonic() - started


def _with_root_cause(error: Exception) -> str:
    """The provider's message, plus the underlying reason when LiteLLM's words hide it
    ("Connection error." says nothing of a refused port or a failed DNS lookup)."""
    message = str(error)
    root = model_errors.root_cause(error)
    detail = str(root).strip()
    if root is not error and detail and detail not in message:
        message += f" ({detail[:300]})"
    return message


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
            and (model_adapter.litellm_loaded() or model_adapter.remote() is not None):
        names += provider_models(provider.litellm_names, provider.prefix)
    return list(dict.fromkeys(names))
