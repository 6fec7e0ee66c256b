"""What the session's settings mean for a model call and for the system prompt."""

from __future__ import annotations

from dataclasses import replace

from vibe_tui.config.settings import Config
from vibe_tui.core.model import ModelSettings
from vibe_tui.tools.base import ToolContext


def model_settings(config: Config, model: str) -> ModelSettings:
    return ModelSettings(model=model, api_base=config.api_base, api_key=config.api_key,
                         timeout_s=config.model_timeout_s, temperature=config.temperature,
                         max_tokens=config.max_output_tokens,
                         text_tool_calls=config.local_model,
                         prompt_progress=config.local_model)


def compaction_settings(config: Config, model: str, max_tokens: int) -> ModelSettings:
    """The summary writer: ``compaction_model`` when set. The session's endpoint and key
    go with it only when it is the same provider (a local server's base URL must not
    capture a hosted summary model)."""
    writer = config.compaction_model or model
    same_provider = _provider(writer) == _provider(model)
    return ModelSettings(model=writer,
                         api_base=config.api_base if same_provider else None,
                         api_key=config.api_key if same_provider else None,
                         timeout_s=config.model_timeout_s, max_tokens=max_tokens)


def turn_settings(settings: ModelSettings, model: str | None) -> ModelSettings:
    """``settings`` for a turn that asked for another model (a custom command's): the
    endpoint and key go with it only to the same provider, as for the summary writer."""
    if not model or model == settings.model:
        return settings
    same_provider = _provider(model) == _provider(settings.model)
    return replace(settings, model=model,
                   api_base=settings.api_base if same_provider else None,
                   api_key=settings.api_key if same_provider else None,
                   text_tool_calls=False, prompt_progress=False)


def _provider(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else "openai"


def sandbox_note(ctx: ToolContext, network: bool) -> str:
    """The model is told it is sandboxed only when it is (probing costs one bwrap start,
    once per process)."""
    from vibe_tui.tools import sandbox

    note = sandbox.describe_for_model(sandbox.in_force(ctx), network=network)
    return f"\n\n{note}" if note else ""
