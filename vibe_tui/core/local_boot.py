"""The embedded model as the session's model when no provider is configured.

Every view does the same: ``needs_local_model`` at start, then ``boot_local_model`` in the
background (the TUI) or before the first turn (headless), and ``server.stop()`` on exit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vibe_tui.local.catalogue import ProgressCallback
    from vibe_tui.local.server import LocalServer
    from vibe_tui.core.session import Session


def needs_local_model(session: Session) -> bool:
    """No model configured anywhere (nor restored from a resumed session): the app must
    still work, with no key at all."""
    return not session.model or (session.config.provider == "local"
                                 and not session.config.local_model)


async def boot_local_model(session: Session,
                           progress: ProgressCallback | None = None) -> LocalServer:
    """Fetch (first time only) and serve the local model, then point the session at it.
    The caller owns the returned server and stops it when the app ends."""
    from vibe_tui.local.server import start_default_local_model

    model, api_base, server = await start_default_local_model(
        progress, session.config.local_model_name)
    session.configure(model=model, api_base=api_base, api_key=server.api_key,
                      **local_model_settings())
    return server


# About 8 KB of code in one write_file; at ~10 tokens/s on two cores, over three minutes.
LOCAL_MAX_OUTPUT_TOKENS = 2048


def local_model_settings() -> dict[str, bool | int | float]:
    """The config every user of the embedded model gets (the evals too)."""
    from vibe_tui.local.catalogue import CONTEXT_SIZE

    # Greedy decoding: a small model's tool calls break far more often when sampled.
    return {"temperature": 0.0, "context_window": CONTEXT_SIZE, "local_model": True,
            "max_output_tokens": LOCAL_MAX_OUTPUT_TOKENS}


async def boot_if_needed(session: Session) -> LocalServer | None:
    """For the command-line entry points (``-p``, ``serve``): the local model when no
    other is configured, its progress on stderr. Raises LocalModelError with a message
    that says the local model was the fallback."""
    from vibe_tui.local.catalogue import LocalModelError
    from vibe_tui.local.weights import stderr_progress

    if not needs_local_model(session):
        return None
    try:
        return await boot_local_model(session, stderr_progress("the local model"))
    except LocalModelError as exc:
        raise LocalModelError(f"no model configured and the local model failed: {exc}") from exc
