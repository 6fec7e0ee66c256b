"""How a streamed answer shares the event loop: the model adapter against the fake
server, through LiteLLM."""

from __future__ import annotations

import sys

from vibe_tui.core.model import ModelSettings, stream_completion
from vibe_tui.testing.script import text

ANSWER = "".join(f"word{n} " for n in range(400))


async def test_a_stream_leaves_no_async_generator_per_chunk_behind(fake_llm):
    # Each generator left unfinished is finalized by asyncio with a thread-safe wake-up of
    # the loop and a task: per chunk, that was a fifth of the stream's CPU.
    fake_llm.push(text(ANSWER, chunk_size=4))
    settings = ModelSettings(model=fake_llm.model, api_base=fake_llm.base_url, api_key="sk-x")
    first_iter, finalizer = sys.get_asyncgen_hooks()
    finalized = []

    def counting(generator):
        finalized.append(generator)
        return finalizer(generator)

    sys.set_asyncgen_hooks(first_iter, counting)
    deltas: list[str] = []
    try:
        response = await stream_completion(settings, [{"role": "user", "content": "hi"}], [],
                                           deltas.append)
    finally:
        sys.set_asyncgen_hooks(first_iter, finalizer)
    assert response.text == ANSWER and len(deltas) == -(-len(ANSWER) // 4)
    assert len(finalized) < 10, f"{len(finalized)} generators finalized for {len(deltas)} deltas"
