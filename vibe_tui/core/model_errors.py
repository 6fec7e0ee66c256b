"""What a failed model call says: one or two lines a new user can act on, in place of the
provider library's paragraph. Part of the model adapter (``model.py`` classifies the
failure; this words the two that a first run meets most: no server, no key)."""

from __future__ import annotations

import os

from vibe_tui.config.providers import provider_of

MAX_REASON_CHARS = 200
# The HTTP clients' names for a connection that could not be made (openai, httpx, aiohttp).
CONNECTION_ERRORS = frozenset({"APIConnectionError", "ConnectError", "ClientConnectorError"})


def connection_failure(exc: BaseException) -> str | None:
    """"refused" when nothing listens at the address, "connection" when the connection
    failed otherwise (LiteLLM reports both as a server error), None when it was made."""
    failure = None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ConnectionRefusedError):
            return "refused"
        name = type(current).__name__
        if isinstance(current, ConnectionError) or name in CONNECTION_ERRORS:
            failure = "connection"
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return failure


def endpoint(model: str, api_base: str | None) -> str:
    """The URL the call went to: the configured one, else the provider's usual one."""
    if api_base:
        return api_base
    return provider_of(model).base_url or "the provider's default URL"


def cannot_reach(model: str, api_base: str | None, reason: str, refused: bool) -> str:
    url = endpoint(model, api_base)
    if refused:
        return (f"cannot reach {model} at {url}: connection refused (is the server running? "
                "/settings or --api-base changes the URL)")
    return f"cannot reach {model} at {url}: {first_line(reason)}"


def key_missing(model: str, api_base: str | None, api_key: str | None) -> bool:
    """No key was given and none of the provider's variables holds one (for a provider in
    the catalogue: of others we do not know the variables)."""
    provider = provider_of(model, api_base)
    prefix = model.split("/", 1)[0] if "/" in model else "openai"
    if (api_key or not provider.key_required or not provider.takes_typed_key
            or provider.prefix != prefix):
        return False
    return not any(os.environ.get(name) for name in provider.key_env)


def about_keys(exc: BaseException, litellm) -> bool:
    """The failure is the provider library's complaint about credentials."""
    text = str(exc).lower()
    return (isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError))
            or "api key" in text or "api_key" in text or "credential" in text)


def no_key(model: str, api_base: str | None) -> str:
    provider = provider_of(model, api_base)
    if provider.key_note:
        where = provider.key_note
    else:
        where = "set " + " or ".join(provider.key_env) + " in the environment"
    return f"no API key for {model}: {where}, or add one in /settings (or pass --api-key)"


def key_refused(model: str, reason: str) -> str:
    return (f"authentication failed for {model}: {first_line(reason).rstrip('.')}. "
            "/settings (or --api-key) sets another key")


def first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no reason given"
    return line if len(line) <= MAX_REASON_CHARS else line[:MAX_REASON_CHARS] + "…"


def root_cause(error: BaseException) -> BaseException:
    """The exception at the bottom of ``error``'s chain (``error`` itself when none)."""
    root, seen = error, set()
    while (following := root.__cause__ or root.__context__) is not None and id(root) not in seen:
        seen.add(id(root))
        root = following
    return root


def retry_after_seconds(exc: Exception) -> float | None:
    """The provider's Retry-After, from whichever place LiteLLM kept the headers."""
    candidates = []
    response = getattr(exc, "response", None)
    if response is not None:
        candidates.append(getattr(response, "headers", None))
    candidates.append(getattr(exc, "litellm_response_headers", None))
    candidates.append(getattr(exc, "headers", None))
    for headers in candidates:
        if not headers:
            continue
        try:
            value = headers.get("retry-after") or headers.get("Retry-After")
        except AttributeError:
            continue
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except (TypeError, ValueError):
            return None
    return None


def short_message(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    # LiteLLM prefixes messages with its own class path; the provider's words matter.
    for prefix in ("litellm.", "OpenAIException - "):
        if text.startswith(prefix):
            text = text.split(" - ", 1)[-1] if " - " in text else text
    return text.strip()[:500]
