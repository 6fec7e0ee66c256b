"""A long session through the app: does it stay fast and small?

Plays 500 turns / 2,000 tool calls from the fake model (a separate process, so its
memory is not counted) through the real Session and the app (headless ``run_test``),
then measures:

- keystroke latency at the end: press a key, time until the prompt's text has it;
- the same while an answer streams at about 200 tokens/s;
- resident memory (VmRSS now, VmHWM peak) of the app's process.

    uv run python bench/long_session.py [--turns 500] [--calls 4] [--keys 100]

Aims: keystroke p95 < 50 ms; RSS < 300 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANSWER = """\
Done with step {n}. The function now reads:

```python
def step_{n}(values: list[int]) -> int:
    total = 0
    for value in values:
        total += value * {n}
    return total
```

- checked with `pytest -q`
- **no** other files changed
"""
SLOW_ANSWER = "streaming slowly " * 200  # ~800 tokens at ~200 tokens/s
KEYS = "zxqv"


def script(turns: int, calls: int) -> list[dict]:
    """Each turn: one response with ``calls`` read-only calls, then a Markdown answer."""
    items: list[dict] = []
    for n in range(turns):
        items.append({"tool_calls": [
            {"name": "read_file", "args": {"path": f"src/mod_{(n + k) % 8}.py"}}
            for k in range(calls)]})
        items.append({"text": ANSWER.format(n=n), "chunk_size": 16})
    items.append({"text": SLOW_ANSWER, "chunk_size": 4, "delay": 0.005})
    return items


def start_server(path: Path) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "vibe_tui.testing.fake_llm", "--port", "0", "--script", str(path)],
        stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if not line.startswith("READY "):
        raise RuntimeError(f"fake server did not start: {line!r}")
    return server, line.split()[1]


def memory_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MB."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


async def wait_until(predicate, timeout: float = 60) -> None:
    # Plain sleeps: Pilot.pause forces a screen update per call, which would be
    # measuring the bench rather than the app.
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            dump_tasks()
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.005)


def dump_tasks() -> None:
    """Where every task is suspended (the whole await chain), to see what is stuck."""
    for task in asyncio.all_tasks():
        frames, awaited = [], task.get_coro()
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
            if frame is not None:
                frames.append(f"{frame.f_code.co_filename.split('/')[-1]}:{frame.f_lineno}"
                              f" {frame.f_code.co_name}")
            awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
        if len(frames) > 1:
            print(task.get_name(), " <- ".join(reversed(frames)), file=sys.stderr)


def press(app, key: str) -> None:
    """A key as the terminal driver delivers it (Pilot.press also waits for idle CPU)."""
    from textual import events

    app.post_message(events.Key(key, "\r" if key == "enter" else key))


async def key_latency(app, key: str) -> float:
    """Milliseconds from a key arriving to the frame that draws it in the prompt."""
    prompt = app.prompt
    drawn = asyncio.Event()
    render_line = prompt.render_line

    def spy(y: int):
        if key in prompt.text:
            drawn.set()
        return render_line(y)

    prompt.render_line = spy  # the compositor calls it when the prompt is redrawn
    try:
        start = time.perf_counter()
        press(app, key)
        await asyncio.wait_for(drawn.wait(), 10)
        return (time.perf_counter() - start) * 1000
    finally:
        del prompt.render_line


async def key_latencies(app, count: int) -> list[float]:
    samples = []
    for index in range(count):
        app.prompt.clear()
        await asyncio.sleep(0.02)  # keys a typist's interval apart, not a burst
        samples.append(await key_latency(app, KEYS[index % len(KEYS)]))
    app.prompt.clear()
    return samples


async def play(base_url: str, workspace: Path, turns: int, keys: int) -> None:
    from vibe_tui.app import VibeApp
    from vibe_tui.config.settings import Config
    from vibe_tui.core import events as ev
    from vibe_tui.core.model import preload
    from vibe_tui.core.session import Session

    await preload()
    session = Session(Config(model="openai/fake-model", api_base=base_url), workspace=workspace)
    app = VibeApp(session)

    def ended() -> int:
        return sum(isinstance(e, ev.TurnEnded) for e in session.event_log)

    async with app.run_test(size=(120, 40)):
        started = time.perf_counter()
        for n in range(turns):
            app.prompt.text = f"step {n}: carry on"
            press(app, "enter")
            await wait_until(lambda: ended() > n and not session.running)
            if (n + 1) % 100 == 0:
                rss, _ = memory_mb()
                print(f"  {n + 1} turns in {time.perf_counter() - started:.1f} s, RSS {rss:.0f} MB",
                      flush=True)
        played = time.perf_counter() - started
        calls = sum(isinstance(e, ev.ToolCall) for e in session.event_log)
        await asyncio.sleep(0.5)  # let the last frames settle before timing keys
        idle = await key_latencies(app, keys)
        app.prompt.text = "one more, slowly"
        press(app, "enter")
        await wait_until(lambda: any(isinstance(e, ev.TextDelta) and e.turn_id == turns + 1
                                     for e in session.event_log[-50:]))
        streaming = await key_latencies(app, keys)
        still_streaming = session.running
        await wait_until(lambda: ended() > turns and not session.running)
        rss, peak = memory_mb()
        mounted = len(app.conversation.entries())
        widgets = len(list(app.screen.query("*")))
    await session.close()
    print(f"played {turns} turns / {calls} tool calls / {len(session.event_log)} events "
          f"in {played:.1f} s ({played / turns * 1000:.0f} ms a turn)")
    report("keystroke, idle after the session", idle)
    report("keystroke, while streaming" + ("" if still_streaming else " (stream ended early)"),
           streaming)
    print(f"memory: RSS {rss:.0f} MB, peak {peak:.0f} MB; conversation entries mounted: "
          f"{mounted} ({widgets} widgets on the screen)")


def report(name: str, samples: list[float]) -> None:
    print(f"{name}: median {statistics.median(samples):.1f} ms, "
          f"p95 {percentile(samples, 0.95):.1f} ms, max {max(samples):.1f} ms "
          f"({len(samples)} keys)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--calls", type=int, default=4, help="tool calls per turn")
    parser.add_argument("--keys", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ["VIBE_TUI_HOME"] = str(root / "home")
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        workspace = root / "ws"
        (workspace / "src").mkdir(parents=True)
        for k in range(8):
            (workspace / "src" / f"mod_{k}.py").write_text(f"def f{k}(x):\n    return x + {k}\n")
        script_path = root / "script.json"
        script_path.write_text(json.dumps(script(args.turns, args.calls)))
        server, base_url = start_server(script_path)
        try:
            asyncio.run(play(base_url, workspace, args.turns, args.keys))
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
