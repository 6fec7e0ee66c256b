"""The model adapter alone: what a streamed answer costs the event loop it runs on.

Streams `peers.py`'s two answers (4,000 tokens of Markdown, at full speed and at 200
tokens/s) from the same fake server process through ``core.model.stream_completion``,
with no screen, and prints for each run: the main thread's CPU seconds, that per delta,
and the longest times the event loop was held (a task that asks to wake every 5 ms
records how late it woke). That is the share of the screen's loop the stream takes today,
and what would leave it if the engine ran in a process of its own.

    uv run python bench/model_stream.py [--runs 3] [--model openai/fake-model]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from peers import FAST, PROMPTS, SLOW, start_server  # noqa: E402
from vibe_tui.core.model import ModelSettings, preload, stream_completion  # noqa: E402

TICK_S = 0.005


class LoopWatch:
    """Wakes every TICK_S and keeps how late each wake-up was."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            self.late.append(now - last - TICK_S)
            last = now

    def __enter__(self) -> LoopWatch:
        self._task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *exc: object) -> None:
        self._task.cancel()


async def one_answer(settings: ModelSettings, kind: str) -> dict:
    deltas = 0

    def on_text(_: str) -> None:
        nonlocal deltas
        deltas += 1

    messages = [{"role": "user", "content": PROMPTS[kind]}]
    cpu, wall = time.thread_time(), time.perf_counter()
    with LoopWatch() as watch:
        await stream_completion(settings, messages, [], on_text)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    held = sorted(watch.late, reverse=True)
    return {"wall": wall, "cpu": cpu, "deltas": deltas, "held": held[:3],
            "held_50ms": sum(1 for late in held if late > 0.05)}


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default="openai/fake-model",
                        help="the LiteLLM model string (the route through LiteLLM)")
    args = parser.parse_args()
    server, base_url = start_server()
    try:
        await preload()
        settings = ModelSettings(model=args.model, api_base=base_url, api_key="sk-bench")
        await stream_completion(settings, [{"role": "user", "content": "warm up"}], [],
                                lambda _: None)
        print(f"{args.model}: the model adapter alone, {args.runs} runs per answer")
        print("| answer | run | wall | main-thread CPU | per delta | loop held longest "
              "(3) | times held > 50 ms |")
        print("|---|---|---|---|---|---|---|")
        for kind, label in ((FAST, "full speed"), (SLOW, "200 tokens/s")):
            for run in range(1, args.runs + 1):
                result = await one_answer(settings, kind)
                held = ", ".join(f"{late * 1000:.0f}" for late in result["held"])
                print(f"| {label} | {run} | {result['wall']:.2f} s | {result['cpu']:.2f} s | "
                      f"{result['cpu'] / max(1, result['deltas']) * 1e6:.0f} µs | {held} ms | "
                      f"{result['held_50ms']} |", flush=True)
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
