"""The agent loop's own time per step, without the model's or the tools' time.

Runs turns of many steps against the fake model server (through LiteLLM, as in use). For
each step it measures the gap between the end of one model call and the start of the next,
minus the tool's own run time: what the loop itself spends (events, JSONL, policy,
history). Prints the median and spread.

    uv run python bench/loop_overhead.py [--steps 200] [--turns 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vibe_tui.config.settings import Config  # noqa: E402
from vibe_tui.core import events as ev  # noqa: E402
from vibe_tui.core import loop as loop_module  # noqa: E402
from vibe_tui.core.session import Session  # noqa: E402
from vibe_tui.testing.fake_llm import FakeLLM  # noqa: E402
from vibe_tui.testing.script import text, tool_call, tool_calls  # noqa: E402


def scripted(steps: int):
    def respond(request: dict):
        calls_so_far = sum(1 for m in request["messages"] if m["role"] == "assistant")
        if calls_so_far % (steps + 1) == steps:
            return text("done")
        return tool_calls(tool_call("read_file", {"path": "notes.txt", "limit": 5}))
    return respond


async def measure(steps: int, turns: int) -> list[float]:
    timings: list[tuple[float, float]] = []
    real_stream = loop_module.stream_completion

    async def timed_stream(*args, **kwargs):
        started = time.perf_counter()
        try:
            return await real_stream(*args, **kwargs)
        finally:
            timings.append((started, time.perf_counter()))

    loop_module.stream_completion = timed_stream
    gaps: list[float] = []
    with tempfile.TemporaryDirectory() as folder, FakeLLM(responder=scripted(steps)) as llm:
        workspace = Path(folder)
        (workspace / "notes.txt").write_text("line\n" * 50)
        # A window no run fills: this measures the loop, not compaction.
        config = Config(model=llm.model, api_base=llm.base_url, max_steps=steps + 5,
                        context_window=1_000_000)
        session = Session(config, workspace)
        for _ in range(turns):
            timings.clear()
            first_event = len(session.event_log)
            session.send("read notes.txt many times")
            await session.wait_idle()
            results = [e for e in session.event_log[first_event:] if isinstance(e, ev.ToolResult)]
            for index, result in enumerate(results):
                gap = timings[index + 1][0] - timings[index][1] - result.duration_s
                gaps.append(gap)
        await session.close()
    loop_module.stream_completion = real_stream
    return gaps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    args = parser.parse_args()
    gaps = asyncio.run(measure(args.steps, args.turns))
    ms = sorted(g * 1000 for g in gaps)
    p95 = ms[int(len(ms) * 0.95) - 1]
    print(f"loop overhead per step over {len(ms)} steps: median {statistics.median(ms):.2f} ms, "
          f"p95 {p95:.2f} ms, min {ms[0]:.2f} ms, max {ms[-1]:.2f} ms (aim: median < 5 ms)")


if __name__ == "__main__":
    main()
