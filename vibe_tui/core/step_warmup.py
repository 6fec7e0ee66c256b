"""Reading the small-model steps' prompt ahead (``core/step_mode.py``), while the user
types."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from vibe_tui.core.host import LoopHost
from vibe_tui.core.model import ModelError, stream_completion
from vibe_tui.core.prompts import STEP_PROMPT

if TYPE_CHECKING:
    from vibe_tui.local.server import LocalServer

log = logging.getLogger(__name__)


async def warm_prefix(host: LoopHost, server: LocalServer) -> None:
    """Have the model read the fixed start of every step request (the prompt) while the
    user types: llama.cpp keeps it in its prompt cache, and the first step reads only the
    task. What was read is saved beside the weights, so a later launch restores it rather
    than reading it again. The first request also pages the weights in. A failure costs
    nothing but time."""
    settings = host.model_settings()
    if not host.config.step_mode or not settings.model:
        return
    messages = [{"role": "system", "content": STEP_PROMPT},
                {"role": "user", "content": "Task: "}]
    key = json.dumps(messages)
    restored = await server.restore_prefix(key)
    try:
        await stream_completion(replace(settings, max_tokens=1), messages, [], _ignore)
    except ModelError as error:
        log.info("the prompt was not read ahead: %s", error.message)
        return
    if not restored:
        await server.save_prefix(key)


def _ignore(_: str) -> None:
    pass
